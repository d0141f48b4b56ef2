"""Writes ``benchmarks/data/privacy_corpus.jsonl``: the detectors' labelled corpus.

Usage::

    python benchmarks/privacy_corpus.py   # rewrites the file (deterministic: seed 23)

Each line: ``text``, ``label`` (positive / negative), ``kind`` (what the secret is, or the
kind a negative could be mistaken for), ``secrets`` (the exact strings that must not survive
redaction), ``template`` and ``split``. The split is by phrasing: every phrasing (template) of
a kind belongs to ``tune`` or ``heldout``, alternately, so held-out sentences are phrasings the
detectors were never tuned on. Values are synthetic and valid (checksums computed with
python-stdnum).
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from stdnum import iban as stdnum_iban
from stdnum import luhn, verhoeff
from stdnum.br import cpf
from stdnum.de import idnr
from stdnum.es import dni
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.it import codicefiscale
from stdnum.nl import bsn

OUT = Path(__file__).resolve().parent / "data" / "privacy_corpus.jsonl"
R = random.Random(23)
HEX = "0123456789abcdef"
AN = string.ascii_letters + string.digits


def rs(chars: str, n: int) -> str:
    return "".join(R.choice(chars) for _ in range(n))


# ------------------------------------------------------------------ values
def card() -> str:
    prefix, n = R.choice(
        [
            ("4", 16),
            ("51", 16),
            ("55", 16),
            ("2221", 16),
            ("37", 15),
            ("6011", 16),
            ("4", 16),
            ("34", 15),
        ]
    )
    body = prefix + rs(string.digits, n - len(prefix) - 1)
    digits = body + luhn.calc_check_digit(body)
    sep = R.choice([" ", "-", ".", "/", "\u00a0", "", " ", "-"])
    if n == 15:
        parts = [digits[:4], digits[4:10], digits[10:]]
    else:
        parts = [digits[i : i + 4] for i in range(0, 16, 4)]
    return sep.join(parts)


def iban() -> str:
    while True:
        cc, bban = R.choice(
            [
                ("DE", rs(string.digits, 18)),
                ("GB", rs(string.ascii_uppercase, 4) + rs(string.digits, 14)),
                ("NL", rs(string.ascii_uppercase, 4) + rs(string.digits, 10)),
                ("PL", rs(string.digits, 24)),
                ("FR", rs(string.digits, 23)),
                ("IT", "X" + rs(string.digits, 22)),
                ("AT", rs(string.digits, 16)),
                ("CH", rs(string.digits, 17)),
                ("BE", rs(string.digits, 12)),
            ]
        )
        check = stdnum_iban.calc_check_digits(cc + "00" + bban)
        value = cc + check + bban
        if stdnum_iban.is_valid(value):
            break
    style = R.choice(["grouped", "grouped", "compact", "lower"])
    if style == "compact":
        return value
    grouped = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    return grouped.lower() if style == "lower" else grouped


def ssn() -> str:
    return f"{R.randint(100, 665)}-{R.randint(10, 99)}-{R.randint(1000, 9999)}"


def sin() -> str:
    body = str(R.randint(1, 7)) + rs(string.digits, 7)
    d = body + luhn.calc_check_digit(body)
    return R.choice([f"{d[:3]} {d[3:6]} {d[6:]}", f"{d[:3]}-{d[3:6]}-{d[6:]}", d])


def aadhaar() -> str:
    body = str(R.randint(2, 9)) + rs(string.digits, 10)
    d = body + verhoeff.calc_check_digit(body)
    return R.choice([f"{d[:4]} {d[4:8]} {d[8:]}", d, f"{d[:4]}-{d[4:8]}-{d[8:]}"])


def pan() -> str:
    return (
        rs(string.ascii_uppercase, 3)
        + R.choice("PCHFAT")
        + rs(string.ascii_uppercase, 1)
        + rs(string.digits, 4)
        + rs(string.ascii_uppercase, 1)
    )


def nino() -> str:
    return (
        R.choice("ABCEHJKLMNPRSTWXYZ")
        + R.choice("ABCEHJKLMNPRSTWXYZ")
        + " ".join([rs(string.digits, 2), rs(string.digits, 2), rs(string.digits, 2)])
        + " "
        + R.choice("ABCD")
    )


def es_dni() -> str:
    n = rs(string.digits, 8)
    return n + dni.calc_check_digit(n)


def codice() -> str:
    while True:
        body = (
            rs(string.ascii_uppercase, 6)
            + rs(string.digits, 2)
            + R.choice("ABCDEHLMPRST")
            + f"{R.randint(1, 28):02d}"
            + R.choice("ABFH")
            + rs(string.digits, 3)
        )
        v = body + codicefiscale.calc_check_digit(body)
        if codicefiscale.is_valid(v):
            return v


def nl_bsn() -> str:
    while True:
        v = rs(string.digits, 9)
        if v[0] != "0" and bsn.is_valid(v):
            return v


def br_cpf() -> str:
    while True:
        body = rs(string.digits, 9)
        v = body + cpf._calc_check_digits(body)
        if cpf.is_valid(v):
            return R.choice([f"{v[:3]}.{v[3:6]}.{v[6:9]}-{v[9:]}", v])


def fr_nir() -> str:
    while True:
        body = (
            R.choice("12")
            + f"{R.randint(50, 99)}{R.randint(1, 12):02d}"
            + f"{R.randint(1, 95):02d}"
            + rs(string.digits, 6)
        )
        v = body + nir.calc_check_digits(body)
        if nir.is_valid(v):
            return v


def de_idnr() -> str:
    while True:
        v = str(R.randint(1, 9)) + rs(string.digits, 10)
        if idnr.is_valid(v):
            return v


def nhs_number() -> str:
    while True:
        v = str(R.randint(4, 9)) + rs(string.digits, 9)
        if nhs.is_valid(v):
            return R.choice([f"{v[:3]} {v[3:6]} {v[6:]}", v])


def passport() -> str:
    return R.choice(
        [
            rs(string.ascii_uppercase, 1) + rs(string.digits, 8),
            rs(string.digits, 9),
            rs(string.ascii_uppercase, 2) + rs(string.digits, 7),
        ]
    )


def b64(n: int) -> str:
    return rs(AN + "+/", n)


TOKENS = {
    "aws_access_key": lambda: "AKIA" + rs(string.ascii_uppercase + "234567", 16),
    "aws_secret_key": lambda: rs(AN, 12) + "/" + rs(AN, 10) + "+" + rs(AN, 16),
    "github_token": lambda: R.choice(["ghp_", "gho_", "ghs_"]) + rs(AN, 36),
    "gitlab_token": lambda: "glpat-" + rs(AN + "_-", 20),
    "npm_token": lambda: "npm_" + rs(AN, 36),
    "sendgrid_key": lambda: "SG." + rs(AN + "_-", 22) + "." + rs(AN + "_-", 43),
    "huggingface_token": lambda: "hf_" + rs(string.ascii_letters, 34),
    "shopify_token": lambda: R.choice(["shpat_", "shpss_", "shpca_"]) + rs(HEX, 32),
    "digitalocean_token": lambda: R.choice(["dop_v1_", "doo_v1_"]) + rs(HEX, 64),
    "azure_storage_key": lambda: b64(86) + "==",
    "twilio_key": lambda: R.choice(["SK", "AC"]) + rs(HEX, 32),
    "discord_token": lambda: R.choice("MNO") + rs(AN, 23) + "." + rs(AN, 6) + "." + rs(AN, 27),
    "mailgun_key": lambda: R.choice(
        ["key-" + rs(HEX, 32), rs(HEX, 32) + "-" + rs(HEX, 8) + "-" + rs(HEX, 8)]
    ),
    "slack_token": lambda: (
        "xoxb-" + rs(string.digits, 11) + "-" + rs(string.digits, 12) + "-" + rs(AN, 24).lower()
    ),
    "stripe_key": lambda: R.choice(["sk_live_", "rk_live_"]) + rs(AN, 24),
    "openai_key": lambda: "sk-proj-" + rs(AN, 48),
    "google_api_key": lambda: "AIza" + rs(AN + "_-", 35),
    "jwt": lambda: "eyJ" + rs(AN, 30) + ".eyJ" + rs(AN, 60) + "." + rs(AN + "_-", 43),
}
VENDOR_NAME = {
    "aws_access_key": "AWS",
    "aws_secret_key": "AWS",
    "github_token": "GitHub",
    "gitlab_token": "GitLab",
    "npm_token": "npm",
    "sendgrid_key": "SendGrid",
    "huggingface_token": "Hugging Face",
    "shopify_token": "Shopify",
    "digitalocean_token": "DigitalOcean",
    "azure_storage_key": "Azure storage",
    "twilio_key": "Twilio",
    "discord_token": "Discord bot",
    "mailgun_key": "Mailgun",
    "slack_token": "Slack bot",
    "stripe_key": "Stripe",
    "openai_key": "OpenAI",
    "google_api_key": "Google Maps",
    "jwt": "session",
}
TOKEN_PHRASINGS = [
    "here's the {vendor} key for the deploy: {v}",
    "I pasted {v} into the {vendor} settings earlier, remember it",
    "{vendor} credentials for the staging job -> {v}",
    "can you keep {v} handy, it's what the {vendor} integration uses",
    "note to self: {vendor} = {v} (rotate in spring)",
    "the {vendor} one we generated yesterday is {v}",
    "Please store this for later: {v}. It unlocks {vendor}.",
    'ok so for {vendor} the token is "{v}" and it expires never',
    "my teammate sent {v} on chat, it's the {vendor} secret",
    "{v} <- that's the {vendor} access, don't lose it",
    "set the CI variable to {v} for {vendor}, thanks",
    "when the bot asks, answer with {v} (it's {vendor})",
]

PEM_TYPES = ["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"]


def pem() -> tuple[str, list[str]]:
    kind = R.choice(PEM_TYPES)
    lines = [b64(64) for _ in range(R.randint(3, 6))] + [b64(R.randint(10, 60))]
    body = "\n".join(lines)
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----", lines


PEM_PHRASINGS = [
    "the deploy key is below\n{v}\nadd it to the server",
    "Here you go:\n{v}",
    "{v}\nthat's the key for the bastion host",
    "save this for the build box please\n\n{v}\n\nthanks!",
    "ssh key for github actions:\n{v}",
    "I generated a new one:\n{v}\nold one is revoked",
]

IDS = {
    "payment_card": (card, ["Visa", "credit card", "card", "Mastercard", "debit card", "Amex"]),
    "iban": (
        iban,
        ["IBAN", "account", "bank account", "IBAN", "Kontonummer (IBAN)", "salary account"],
    ),
    "us_ssn": (ssn, ["SSN", "social security number", "SSN", "social security no."]),
    "ca_sin": (sin, ["SIN", "social insurance number", "SIN", "NAS"]),
    "aadhaar": (aadhaar, ["Aadhaar", "Aadhaar number", "aadhaar no", "UID"]),
    "india_pan": (pan, ["PAN", "PAN card", "PAN number", "PAN"]),
    "uk_nino": (nino, ["National Insurance number", "NI number", "NINO", "NI no"]),
    "es_dni": (es_dni, ["DNI", "DNI number", "documento de identidad", "DNI"]),
    "it_codice_fiscale": (codice, ["codice fiscale", "tax code", "codice fiscale", "CF"]),
    "nl_bsn": (nl_bsn, ["BSN", "burgerservicenummer", "BSN number", "BSN"]),
    "br_cpf": (br_cpf, ["CPF", "CPF number", "CPF", "número do CPF"]),
    "fr_nir": (
        fr_nir,
        ["numéro de sécu", "NIR", "numéro de sécurité sociale", "carte vitale number"],
    ),
    "de_idnr": (de_idnr, ["Steuer-ID", "Steueridentifikationsnummer", "tax ID", "Steuer-ID"]),
    "nhs_number": (nhs_number, ["NHS number", "NHS no", "NHS number", "NHS"]),
    "passport": (
        passport,
        ["passport number", "passport no.", "Reisepassnummer", "numéro de passeport"],
    ),
}
ID_PHRASINGS = [
    "my {name} is {v}",
    "{name}: {v}",
    "for the form you need my {name}, it's {v}.",
    "please remember {v} as my {name}",
    "The {name} on file should be {v}, can you update it?",
    "use {v} ({name}) when you fill in the application",
    "{name} {v} - the bank asked for it again",
    "ok here it is, {name} = {v}",
    "I'll write it down: {v} is the {name} for my wife",
    "Quick one: {name} is {v} and the appointment is Tuesday",
]

PASSWORDS = {
    "password_en": [
        "my pass is {v}",
        "I set my gmail password to {v}",
        "use '{v}' to log in",
        "the wifi password is {v}",
        "password for the NAS: {v}",
        "Changed the router password to {v} yesterday",
        "pw {v}",
        "my netflix login password? it's {v}",
        "remember my password, it's {v}",
        "the code to the admin panel password-wise is {v}",
        "Password: {v}",
        "my banking password = {v}",
        "I changed my Apple ID password to {v}.",
        'try "{v}" to sign in',
        "our shared drive password is {v} for now",
        "and the password for the alarm app was {v}",
    ],
    "password_de": [
        "Mein Passwort ist {v}",
        "Das WLAN-Passwort lautet {v}",
        "Kennwort: {v}",
        "das Passwort für den Server ist {v}",
        "Ich habe mein Passwort auf {v} geändert",
        "Passwort fürs Onlinebanking: {v}",
        "mein Kennwort lautet {v}, bitte merken",
        "Zugangsdaten: Benutzer max / {v}",
        "das Passwort für die Fritzbox ist {v}.",
        "Neues Passwort = {v}",
    ],
    "password_fr": [
        "Mon mot de passe est {v}",
        "le mot de passe du wifi c'est {v}",
        "mot de passe : {v}",
        "mdp {v}",
        "j'ai changé mon mot de passe en {v}",
        "le mot de passe pour la box est {v}.",
        "Voici mon mot de passe : {v}",
        "mot de passe de la banque = {v}",
        "le mot de passe du serveur était {v}",
        "identifiant paul / {v}",
    ],
    "password_es": [
        "Mi contraseña es {v}",
        "la contraseña del wifi es {v}",
        "contraseña: {v}",
        "la clave del banco es {v}",
        "cambié mi contraseña a {v}",
        "mi contraseña del correo es {v}.",
        "usuario ana / {v}",
        "Contraseña = {v}",
        "la contraseña para entrar es {v}",
        "te paso la contraseña: {v}",
    ],
    "login_pair": [
        "user admin / {v}",
        "login: jdoe / {v}",
        "creds are root:{v}",
        "username bob.k password {v}",
        "account priya, pw: {v}",
        "Login is mgarcia and pw is {v}",
        "for the router: user root password {v}",
        "credentials admin/{v}",
        "usr ops | {v}",
        "user: deploy pass: {v}",
    ],
    "pin": [
        "my PIN is {p}",
        "card PIN {p}",
        "the pin code for the door is {p}",
        "PIN: {p}",
        "meine PIN ist {p}",
        "mon code PIN est {p}",
        "mi PIN es {p}",
        "cvv {p3}",
        "the security code on the back is {p3}",
        "CVC: {p3}",
    ],
}


def password() -> str:
    word = R.choice(
        [
            "Sunflower",
            "falcon",
            "Tr0ub4dor",
            "mango",
            "Zebra",
            "kiwi",
            "Orion",
            "Blue",
            "Sommer",
            "soleil",
            "perro",
            "Lagos",
            "Nebula",
            "quartz",
        ]
    )
    tail = R.choice(["88", "!9", "2024", "#7", "_42", "123", "!!", "$5", "-azul-7", "99x"])
    return R.choice(
        [word + tail, word.capitalize() + tail, rs(AN, 10), word + "." + tail.strip("!#$")]
    )


HEALTH = [
    "I was diagnosed with type 2 diabetes last spring",
    "my son has asthma so no smoking near him",
    "She takes insulin twice a day",
    "I've been dealing with depression since my divorce",
    "My mum is living with dementia now",
    "I'm pregnant, due in March",
    "my husband had a heart attack in 2019",
    "I suffer from migraines most weekends",
    "I'm allergic to penicillin",
    "my doctor put me on sertraline",
    "I have epilepsy, so I can't drive",
    "my daughter was diagnosed with autism",
    "I'm on chemo until June",
    "I have bipolar disorder and see a psychiatrist monthly",
    "My dad is recovering from a stroke",
    "i've got crohn's and need a bathroom nearby",
    "my brother is HIV-positive",
    "I take metformin with breakfast",
    "my wife has multiple sclerosis",
    "I have chronic arthritis in both knees",
    "I had surgery on my spine last month",
    "my grandmother has Parkinson's",
    "I'm getting treatment for anxiety",
    "my partner has celiac disease, no gluten please",
]

NEGATIVES = {
    "payment_card": [
        "where is my order {o}?",
        "order number {o} hasn't shipped",
        "tracking {t} says delivered",
        "ISBN {isbn} is the second edition",
        "the parcel {t} is stuck in customs",
        "invoice {o} was paid last week",
        "my loyalty number is {o}",
        "confirmation code {o} for the hotel",
        "Bestellnummer {o} fehlt noch",
        "ticket {o} was escalated",
        "the ISBN-13 {isbn} is out of print",
        "package {t} needs a signature",
        "shipment {t} left the depot",
        "reference {o} on the bank transfer",
        "IMEI {imei} is blacklisted",
        "my frequent flyer number {o}",
    ],
    "iban": [
        "the flight is LH 4821 tomorrow",
        "postcode SW1A 1AA is ours",
        "model DE42 SERIES 7 2024 is sold out",
        "room AB12 is on the third floor",
        "shipment NL12 3456 arrives Friday",
        "the build GB20 failed",
        "use preset ES24 for the render",
        "product code FR76 in the catalogue",
    ],
    "government_id": [
        "call me on {phone}",
        "my number is {phone}",
        "the date was {date}",
        "meeting on {date} at 10:30",
        "the office line is {phone}",
        "version {ver} is out",
        "we upgraded to {ver} last night",
        "my passport expires in May",
        "the DNI office opens at nine",
        "my NHS appointment is on {date}",
        "SSN verification takes 3 days",
        "I need a passport photo",
        "the SIN card office closed early",
        "the PAN card process takes two weeks",
        "flight BA {d} leaves at 06:15",
        "price is 1 299.00 EUR",
        "the fax is {phone}",
        "reach the desk at {phone} after {date}",
        "ISBN {isbn}, paperback",
        "release {ver} shipped on {date}",
        "he was born {date}",
        "the train {d} to Lyon leaves at 07:{d2}",
        "coordinates 48.{d} 2.{d}",
        "receipt {o}",
        "customer number {o}",
        "the IMEI is {imei}",
        "population was 8 804 190 in 2020",
        "the serial is {o}",
    ],
    "credential": [
        "the password must be at least 12 characters",
        "reset your password via the link",
        "I forgot my password again",
        "my password is too short apparently",
        "das Passwort ist zu kurz",
        "le mot de passe est incorrect",
        "la contraseña es incorrecta",
        "the token limit is 8192",
        "API key rotation happens monthly",
        "the password manager is locked",
        "my password was changed yesterday",
        "commit {hash} fixed the login bug",
        "git checkout {hash}",
        "the request id was {uuid}",
        "row {uuid} is missing",
        "sha256 of the file is {sha}",
        "the hash {hash} matches upstream",
        "set the field password_hint to empty",
        "boarding pass: gate 12A",
        "my bus pass is expired",
        "log in with Google",
        "the session token is expired",
        "use the staging env to log in",
        "user admin has no access",
        "the secret is out",
        "a pass rate of 87%",
        "Kennwort vergessen?",
        "mot de passe oublié",
        "olvidé mi contraseña",
        "the PIN pad is broken",
        "my pin is in the map at 12 Main St",
        "key-value stores are fine",
        "the docker image sha is sha256:{sha}",
        "uuid {uuid} belongs to the test tenant",
        "tag v{ver} points to {hash}",
        "merge {hash} into main before {date}",
        "the cache key is {sha}",
        "build {ver} ({hash})",
        "pip install requests=={ver}",
        "bump the token budget to {d} for {ver}",
        "the container id {hash} crashed",
        "etag {sha} changed",
        "trace {uuid} took {d} ms",
        "password length must be {d}",
        "PIN must have {d} digits",
        "api key count: {d}",
    ],
    "health": [
        "I'm a Cancer, born in July",
        "I need new prescription sunglasses",
        "I'm reading a novel about dementia",
        "we visited the cancer research museum",
        "the Great Depression changed the economy",
        "a tropical depression is forming",
        "the stroke of midnight",
        "my favourite swimming stroke is butterfly",
        "the diabetes charity run is on Sunday",
        "she wrote a book about anxiety",
        "he's a Cancer so he's moody, apparently",
        "the pharmacy sells prescription goggles",
        "the documentary about autism won an award",
        "my horoscope says Cancer has a good week",
        "the allergy-friendly menu is great",
        "a lecture on HIV research",
        "std::vector is faster",
        "the podcast episode on depression was good",
        "our startup builds an AIDS awareness app",
        "the surgery hours are 9 to 5",
        "Cancer season starts on June {d}",
        "the crab nebula (a Cancer constellation object) is {d} light years off",
        "room {d} holds the diabetes exhibition",
        "chapter {d} of the novel is about her dementia",
        "the museum's cancer wing opens on the {d}th",
        "episode {d} covers the Great Depression",
        "buy prescription glasses for {d} EUR",
        "the asthma inhaler ad ran {d} times",
        "stroke count was {d} in the rowing race",
        "our charity walk for Alzheimer's raised {d} dollars",
    ],
}


def phone() -> str:
    return R.choice(
        [
            f"+44 20 {R.randint(7000, 7999)} {R.randint(1000, 9999)}",
            f"(555) {R.randint(100, 999)}-{R.randint(1000, 9999)}",
            f"+1 415 {R.randint(200, 999)} {R.randint(1000, 9999)}",
            f"030 {R.randint(1000000, 9999999)}",
            f"06 {R.randint(10, 99)} {R.randint(10, 99)} {R.randint(10, 99)} {R.randint(10, 99)}",
        ]
    )


def isbn13() -> str:
    from stdnum import ean

    body = "978" + rs(string.digits, 9)
    v = body + ean.calc_check_digit(body)
    return f"{v[:3]}-{v[3]}-{v[4:7]}-{v[7:12]}-{v[12]}"


def imei() -> str:
    body = rs(string.digits, 14)
    return body + luhn.calc_check_digit(body)


def fill_negative(t: str) -> str:
    return t.format(
        o=R.choice(
            [
                f"A-{rs(string.digits, 8)}",
                f"#{rs(string.digits, 9)}",
                f"ORD-{rs(string.digits, 6)}",
                "4" + rs(string.digits, 15),
                f"{rs(string.digits, 4)} {rs(string.digits, 4)} {rs(string.digits, 4)}",
            ]
        ),
        t=R.choice(
            [
                "1Z" + rs(string.ascii_uppercase + string.digits, 16),
                "9400 1"
                + rs(string.digits, 3)
                + " "
                + " ".join(rs(string.digits, 4) for _ in range(4))
                + " "
                + rs(string.digits, 2),
                rs(string.digits, 12),
            ]
        ),
        isbn=isbn13(),
        phone=phone(),
        date=R.choice(
            [
                f"2024-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}",
                f"{R.randint(1, 28)}/{R.randint(1, 12)}/2023",
                f"{R.randint(1, 28)}.{R.randint(1, 12)}.2025",
            ]
        ),
        ver=f"{R.randint(1, 9)}.{R.randint(0, 20)}.{R.randint(0, 30)}",
        d=R.randint(2, 999),
        d2=R.randint(10, 59),
        imei=imei(),
        hash=rs(HEX, R.choice([7, 40])),
        sha=rs(HEX, 64),
        uuid=f"{rs(HEX, 8)}-{rs(HEX, 4)}-4{rs(HEX, 3)}-a{rs(HEX, 3)}-{rs(HEX, 12)}",
    )


def main() -> int:
    rows: list[dict] = []

    def add(label, kind, template_id, text, secrets):
        split = "tune" if template_id % 2 == 0 else "heldout"
        rows.append(
            {
                "label": label,
                "kind": kind,
                "template": template_id,
                "split": split,
                "text": text,
                "secrets": secrets,
            }
        )

    for kind, make in TOKENS.items():
        for i, t in enumerate(TOKEN_PHRASINGS):
            v = make()
            add("positive", kind, i, t.format(v=v, vendor=VENDOR_NAME[kind]), [v])
    for i, t in enumerate(PEM_PHRASINGS * 2):
        v, lines = pem()
        add("positive", "private_key", i % len(PEM_PHRASINGS), t.format(v=v), lines)
    for kind, (make, names) in IDS.items():
        for i, t in enumerate(ID_PHRASINGS):
            for _ in range(2):
                v = make()
                add("positive", kind, i, t.format(v=v, name=R.choice(names)), [v])
    for kind, templates in PASSWORDS.items():
        for i, t in enumerate(templates):
            for _ in range(2 if kind != "password_en" else 2):
                v = password()
                p = str(R.randint(1000, 999999)).zfill(4)
                p3 = str(R.randint(100, 999))
                text = t.format(v=v, p=p, p3=p3)
                add("positive", kind, i, text, [p if "{p}" in t else p3 if "{p3}" in t else v])
    for i, text in enumerate(HEALTH):
        add("positive", "health", i, text, [])
    for near, templates in NEGATIVES.items():
        for i, t in enumerate(templates):
            seen: set[str] = set()
            for _ in range(6):
                text = fill_negative(t)
                if text not in seen:
                    seen.add(text)
                    add("negative", near, i, text, [])
    with OUT.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    pos = sum(r["label"] == "positive" for r in rows)
    print(
        f"{pos} positives in {len({r['kind'] for r in rows if r['label'] == 'positive'})} kinds, "
        f"{len(rows) - pos} negatives -> {OUT}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
