"""Kinds of personal detail a user asks to forget by name, each with sentences that state one.

"Please forget my home address" names a kind of detail, not the words the user used when
they gave it ("I live at 4 Elm Road"); MiniLM puts those two far apart. A forget request
whose subject is close to a kind's label is matched to memories through that kind's example
sentences too (``ConversationEdits.forget``).

The vocabulary is a general taxonomy (identifiers, the special categories of personal data,
the common areas of a life), written without reference to any evaluation corpus; pass your
own to :class:`~adk_memory_kit.routing.edits.conversation_edits.ConversationEdits` to extend it.
Of seven more kinds measured on the tune split of ``tests/routing/data/edits.jsonl``, two
were kept (hobbies, online accounts: more requests honoured, nothing more deleted for a
target never stored); pets, gym memberships, bank details, legal matters and engagements
each made a request for a detail never stored take a neighbour of that kind, and were left
out.
"""

from __future__ import annotations

from collections.abc import Mapping

DetailKinds = Mapping[str, tuple[str, ...]]

#: label (the ways a user names the kind) -> example sentences stating such a detail
DEFAULT_DETAIL_KINDS: DetailKinds = {
    "home address, where I live": (
        "I live at 27 Station Road, Exeter.",
        "Our flat is on the second floor of 8 Park Avenue.",
        "My address is 41 Cedar Close.",
        "We live on Elm Street in Denver.",
    ),
    "old address, where I used to live": (
        "I used to live at 12 Hill Street.",
        "Before we moved, our address was 5 Orchard Way.",
    ),
    "phone number, mobile number": (
        "My mobile number is 07123 456789.",
        "You can call me on 0161 555 2233.",
    ),
    "email address": ("My email is jo.smith@example.com.", "Write to me at sam@mailbox.org."),
    "date of birth, birthday, age": (
        "I was born on 12 July 1979.",
        "My birthday is on 2 October.",
        "I'm 52 years old.",
    ),
    "medical history, health, medical details, illness, diagnosis, condition, surgery": (
        "I was diagnosed with asthma as a child.",
        "I had an operation on my spine last year.",
        "I take tablets for my blood pressure.",
        "My doctor says I have a heart condition.",
        "She was told she has a chronic illness.",
        "He is having treatment in hospital.",
        "I've got coeliac disease.",
        "I was treated for breast cancer two years ago.",
        "I get really bad migraines.",
        "I've had epilepsy since I was a teenager.",
        "I'm on insulin injections.",
        "I tore a ligament in my ankle playing football.",
        "I'm recovering from a stroke.",
        "My cholesterol is too high.",
    ),
    "addiction, gambling, drinking, drugs": (
        "I'm a recovering alcoholic.",
        "I used to bet on horses every day.",
        "I've been clean from drugs for a year.",
    ),
    "nationality, citizenship, immigration status": (
        "I'm a French citizen.",
        "I have a residence permit.",
        "I hold a Brazilian passport.",
    ),
    "vehicle registration, number plate": (
        "My licence plate reads XY21 ZZZ.",
        "The van is registered as KL09 MNO.",
    ),
    "mental health": (
        "I've been treated for depression.",
        "I suffer from anxiety and see a counsellor.",
        "I take medication for my mood.",
    ),
    "blood type, blood group": (
        "My blood group is A positive.",
        "I'm B negative, blood type wise.",
    ),
    "past relationship, ex, former partner, ex-boyfriend, ex-girlfriend, ex-husband, ex-wife": (
        "My ex and I broke up last year.",
        "I used to go out with Sam until we split up.",
        "We were together for six years before the break-up.",
        "My former husband remarried.",
    ),
    "love life, dating, partner": (
        "I'm seeing someone new.",
        "I've been on a few dates with a man from work.",
        "I met a woman on a dating app and we're meeting again on Friday.",
        "My date last night went really well.",
    ),
    "family, parents, siblings": (
        "My mother is called Helen.",
        "My dad is a retired plumber.",
        "I have two older brothers.",
    ),
    "children, kids": (
        "My son is called Leo.",
        "Our daughter is seven.",
        "My youngest has just started nursery.",
        "The twins are in year two.",
        "My eldest is applying to university.",
    ),
    "job, work, employer, workplace, occupation": (
        "I work as a nurse at the city hospital.",
        "My employer is a bank in the City.",
        "I'm a developer at a small startup.",
        "I run the accounts team at a logistics firm.",
    ),
    "finances, money, debts, salary, savings, loans": (
        "I earn 50,000 a year.",
        "I owe 3,000 on my credit card.",
        "I'm behind on my loan repayments.",
        "I've got an overdraft I can't clear.",
        "We have savings in an ISA.",
        "Our mortgage is with Halifax.",
    ),
    "religion, faith, beliefs": (
        "I'm a Catholic and go to mass every week.",
        "I'm Jewish.",
        "I'm a practising Buddhist.",
    ),
    "political views": ("I vote Green.", "I'm a member of the Labour Party."),
    "sexuality, sexual orientation": ("I'm gay.", "I'm bisexual."),
    "criminal record, arrest, conviction": (
        "I have a conviction for drink driving.",
        "I spent a night in a police cell.",
    ),
    "home town, where I grew up, where I'm from": (
        "I was born and raised in Leicester.",
        "I'm originally from a village near Cork.",
    ),
    "education, where I studied, school, university, degree": (
        "I studied chemistry at Manchester.",
        "I went to university in Glasgow.",
        "I have a master's degree in law.",
    ),
    "holiday plans, travel plans, trip": (
        "We're going to Greece in the summer.",
        "I'm flying to New York next month.",
    ),
    # two attributes, two kinds: "my weight" is not "I'm 1.80 metres tall"
    "weight, body weight": ("I weigh 70 kilos.", "I've put on a stone since Christmas."),
    "height, how tall I am": ("I'm 1.80 metres tall.", "I'm five foot four."),
    "allergies": ("I'm allergic to shellfish.", "Penicillin gives me a rash."),
    "pregnancy": ("I'm pregnant with our second child.", "We're expecting a baby in spring."),
    "hobby, hobbies, sport, pastime": (
        "I play five-a-side football on Tuesdays.",
        "I paint watercolours at the weekend.",
        "I've taken up long-distance running.",
    ),
    "online account, username, social media, handle": (
        "My username on the site is skyrunner88.",
        "I'm @jdoe_writes on Twitter.",
        "My gamer tag is NightOwl.",
    ),
    "name, nickname": (
        "My name is Chris Evans.",
        "My friends call me Tig.",
        "She is called Anna.",
        "His name is Tom.",
    ),
}
