"""The health pre-filter: which sentences may be about health, from broad vocabularies.

Three sources, all lower case: drug names and ICD-10-CM condition words
(:mod:`~adk_memory_kit.sensitive.health_vocab_data`, built from kept libraries), word stems
of care, conditions and tests in seven languages (below), and clinical suffixes (``-itis``,
``-ectomy``, ``-statin`` ...). A sentence with none of them is not read further, so the
classifier (:mod:`~adk_memory_kit.sensitive.health_model`) runs on few sentences.

Guarantee: :func:`candidate_sentences` returns every sentence holding a vocabulary word,
stem or suffix (a sentence is split at ``.!?;`` and line breaks, and cut into 400-character
slices when longer); it reads each character a bounded number of times.
"""

from __future__ import annotations

import re
from functools import lru_cache

from anyascii import anyascii

from adk_memory_kit.sensitive.base import prefix_tree
from adk_memory_kit.sensitive.health_vocab_data import CONDITIONS, DRUGS
from adk_memory_kit.sensitive.health_world import world_terms

#: Stems that start a health word (matched at a word start; Latin scripts); a hyphen joins
#: the words of a phrase (``blood-test``) and matches a space or a hyphen.
_STEMS = """
diagnos sympt doctor physician gp surgeon surgery surgical hospital clinic icu er-visit
medica meds pills prescri dose dosage refill pharmac therap counsel psychiatr psycholog
rehab detox sober sobriety relaps recovery-meeting aa-meeting twelve-step methadone ct-scan
pet-scan bone-scan brain-scan scan-result
suboxone narcan overdose withdraw chemo radiation radiotherap oncolog biops mri
x-ray xray ultrasound bloodwork blood-test lab-results a1c hba1c ldl hdl cholesterol
glucose blood-sugar insulin pregnan miscarr abortion ivf fertility embryo egg-retrieval
prep hiv herpes hpv chlamydia ptsd adhd ocd bipolar depress anxiety anxious
panic eating-disorder anorex bulimi self-harm suicid cancer tumou tumor diabet asthma
epilep seizure migraine arthritis lupus dementia alzheimer parkinson stroke heart-attack
cardiac cardio pacemaker stent transplant dialysis kidney liver thyroid hormone
menopaus period-pain endometrios pcos infertil vasectomy hysterectom mastectom
colonoscop mammogra pap-smear concussion fracture broken-arm broken-leg cast crutch
wheelchair disabilit hearing-aid vaccin covid infection virus illness sick disease
disorder syndrome condition allerg inhaler epipen injection ozempic wegovy weight-loss
antidepress antibiotic painkill opioid benzo xanax crohn colitis ibs celiac coeliac
eczema psoria acne-treatment gout anemi anaemi hypo hyper cyst polyp hernia
treatment treated cured remission viral-load deaf blind nausea vomit fever cough
ache injur wound stitches replacement knee-replace hip-replace replaced-my lost-the-baby
lost-a-baby weeks-pregnant hep-c hep-b bloods egfr tsh psa-test ecg ekg physio rheumat
sleep-apnea apnea insomnia tinnitus
chimio radioth alcool álcool alcol trocken diabét dialys séropos
sieropos soropos autis celíac triglic ptbs tept ferritin hémoglob hemoglob glucém glicém
embaraz grossesse schwangersch gravidez gravidanz kemo quimi intubad entbind parto
diagnóstic enfermedad cáncer embarazad embarazo quimio tratamiento medicamento pastilla
receta médic cirugía operación terapia psicólog psiquiatr síntoma dolor alergia asma
vih sida biopsia sobri alcohólic adicci recaída insulina presión colesterol infarto
derrame esclerosis epilepsia autismo tdah trastorno fertilidad antidepresiv migraña
diálisis ansiedad depresión ataque enferm
diagnostiqu maladie diabète dépression anxiété enceinte grossesse fausse-couche
avortement traitement ordonnance médecin hôpital chirurgie opération thérapie
symptôme douleur allergie asthme tumeur biopsie alcooliq rechute insuline tension
cholestérol infarctus avc sclérose épilepsie autisme trouble antidépress dialyse
angoisse crise burn-out anorexie boulimie psy enceint
diagnose diagnostiz krank krebs schwanger fehlgeburt abtreibung behandlung medikament
tablette rezept arzt ärzt krankenhaus klinik therapie psychiater symptom schmerz
allergie tumor biopsie alkohol sucht rückfall blutdruck cholesterin herzinfarkt
schlaganfall sklerose epilepsie autismus adhs störung befruchtung antidepress migräne
dialyse panikattack magersucht burnout angststörung
diagnóstic doença câncer cancro grávida gravidez tratamento remédio medicament receita
cirurgia operação sintoma alergia biópsia sóbri alcoólatra vício recaída pressão
colesterol esclerose transtorno fertiliza enxaqueca diálise ansiedade depressão
diagnostic malattia tumore diabete depressione ansia incinta gravidanza chemio farmac
medicin ricetta medico ospedale chirurgia intervento sintom dolore allergia biopsia
sobrio alcolista dipendenza ricaduta pressione colesterolo ictus sclerosi epilessia
disturbo fecondazione emicrania dialisi anoressia psicologa psicologo
""".split()

#: Japanese health words (matched anywhere: no spaces between words).
_JA = """
診断 病気 がん 癌 糖尿病 うつ 鬱 不安障害 妊娠 流産 中絶 抗がん剤 治療 薬 処方 医者 病院 手術 入院
通院 カウンセリング 精神科 心療内科 症状 痛み アレルギー 喘息 エイズ 腫瘍 生検 断酒 禁酒 依存症
再発 インスリン 認知症 血糖 酒 禁煙
血圧 コレステロール 心筋梗塞 脳卒中 硬化症 てんかん 自閉症 障害 不妊 体外受精
抗うつ 片頭痛 透析 パニック 摂食障害 拒食症 発作 持病 リハビリ 骨折 検査 陽性 医師 診察 服用 錠
""".split()

#: Clinical suffixes (a word ending in one is a condition, a procedure or a drug).
_SUFFIXES = tuple(
    "itis osis emia aemia oma omas pathy ectomy otomy plasty scopy algia statin olol pril "
    "sartan azepam zolam prazole mycin cillin floxacin mab tinib glutide gliptin dronate "
    "triptan oxetine azine idone apine".split()
)
_LATIN_WORD = re.compile(r"[a-zà-ÿ][a-zà-ÿ'-]*")
_ELISION = re.compile(r"(?:l|d|j|qu|s|n|c|m|t|all|dell|nell|sull|un)'")
_SPLIT = re.compile(r"[.!?;。！？\n]+")
_SLICE = 400


@lru_cache(maxsize=1)
def _vocab() -> tuple[frozenset[str], re.Pattern[str], re.Pattern[str]]:
    words = frozenset(DRUGS.split()) | frozenset(CONDITIONS.split())
    # a stem "x-ray" is the phrase "x ray": hyphens in the text are read as spaces too
    stem = re.compile(
        r"(?<![a-zà-ÿ])(?:" + prefix_tree(sorted({s.replace("-", " ") for s in _STEMS})) + ")"
    )
    ja = re.compile(prefix_tree(sorted(_JA)))
    return words, stem, ja


#: Figurative uses of health words: removed before the vocabulary is read.
_IDIOMS = re.compile(
    r"pregnant pause|sick (?:of|and tired)|heart of (?:the|gold)|by heart|dying to|"
    r"mental note|a pain in the|break a leg|sick beat|(?:is|was|so) sick(?=[ ,.!]|$)|"
    r"giving me a headache|health ?check|healthz|healthy? (?:snack|recipe|option)s?|"
    r"(?:gluten|lactose|dairy|nut|sugar|caffeine|fragrance)[- ]free"
)
#: Every idiom above holds one of these.
_IDIOM_KEYS = (
    "pregnant pause", "sick", "heart", "dying to", "mental note", "pain in the",
    "break a leg", "headache", "health", "free",
)  # fmt: skip
#: Code and identifiers (``pregnancy_flag``, ``/healthz``, ``heartbeat_interval: 30s``,
#: ``u-4a52a1cd``): whole tokens, judged in Python (a regex with a ``\S*`` on each side of a
#: character class is quadratic on a long token).
_WHOLE_TOKEN = re.compile(r"(?<!\S)\S+")
_CODE_CHARS = frozenset("_/=\\(")
_LABEL_NUMBER = re.compile(r"\b\w+:(?=\s*\d)")


def _code_like(token: str) -> bool:
    if not _CODE_CHARS.isdisjoint(token):
        return True
    if len(token) < 6:
        return False
    digits = sum(map(str.isdigit, token))
    return digits >= 3 and digits < len(token) and any(map(str.isalpha, token))


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out, pos = [], 0
    for a, b in spans:
        out.append(text[pos:a])
        out.append(" " * (b - a))
        pos = b
    out.append(text[pos:])
    return "".join(out)


def health_terms(sentence: str) -> list[tuple[int, int]]:
    """Spans (in ``sentence``, which may be a whole text) of its health words, stems and
    suffixes, figurative uses, code tokens and practitioners' jobs left out (case ignored).
    A text whose lower case changes its length is read in its own case. Linear."""
    lower = sentence.lower()
    if len(lower) != len(sentence):
        lower = sentence
    if any(k in lower for k in _IDIOM_KEYS):  # every idiom holds one (C-speed test first)
        lower = _IDIOMS.sub(lambda m: " " * len(m.group(0)), lower)
    code = [
        m.span()
        for m in _WHOLE_TOKEN.finditer(lower)
        if (len(m.group(0)) >= 6 or not _CODE_CHARS.isdisjoint(m.group(0)))
        and _code_like(m.group(0))
    ]
    lower = _blank(lower, code)
    if ":" in lower:
        lower = _LABEL_NUMBER.sub(lambda m: " " * len(m.group(0)), lower)
    lower = lower.replace("-", " ")
    words, stem, ja = _vocab()
    spans = [m.span() for m in stem.finditer(lower)]
    if not lower.isascii():
        spans += [m.span() for m in ja.finditer(lower)]
    spans += world_terms(lower)
    # the words that may count, from the distinct words (set look-ups at C speed); the text
    # is walked only when there is one
    distinct = set(_LATIN_WORD.findall(lower))
    maybe = distinct & words
    maybe.update(w for w in distinct if "'" in w or (len(w) >= 7 and w.endswith(_SUFFIXES)))
    for m in _LATIN_WORD.finditer(lower) if maybe else ():
        word = m.group(0)
        if word not in maybe:
            continue
        a = m.start()
        if "'" in word:  # French and Italian elision: "l'escitalopram", "d'insuline"
            elided = _ELISION.match(word)
            if elided is not None:
                word, a = word[elided.end() :], a + elided.end()
        if word in words or (len(word) >= 7 and word.endswith(_SUFFIXES)):
            spans.append((a, m.end()))
    if not lower.isascii():
        spans += transliterated_terms(lower)
    return sorted(s for s in spans if not _profession(lower, *s))


#: Someone's job or studies, not a condition: "my sister is a cardiologist".
_PRACTITIONER = re.compile(
    r"[a-zà-ÿ]*(?:ologist|iatrist|ician|edic|doctor|nurse|surgeon|therapist|dentist|"
    r"pharmacist|midwife|gp|medicine|nursing|medicina|médecine|medizin|médico|médica|médecin|infirmi\w*|enfermer[oa]|arzt|ärztin|"
    r"krankenschwester|pfleger\w*|medico|infermier[ea]|psicólog[oa]|psicolog[oa]|psy)"
    r"s?(?![a-zà-ÿ])"
)
_JOB_BEFORE = re.compile(
    r"(?:\b(?:is|am|'s|was|are|were|works? as|working as|trained as|became|become|as|est|es|"
    r"ist|è|é)\s+(?:a|an|un|une|una|um|uma|ein|eine)?\s*(?:[a-zà-ÿ-]+\s+)?|\b(?:studying|"
    r"studies|study|estudia|étudie|studiert)\s+(?:to be\s+(?:a|an)\s+)?)$"
)


def _profession(lower: str, start: int, end: int) -> bool:
    """Whether the health word at ``start`` names a practitioner's job ("is a nurse")."""
    word = _PRACTITIONER.match(lower, start)
    if word is None or word.end() < end:
        return False
    return _JOB_BEFORE.search(lower[max(0, start - 40) : start]) is not None


def is_candidate(sentence: str) -> bool:
    """Whether ``sentence`` holds a health word, stem or suffix (see :func:`health_terms`)."""
    return bool(health_terms(sentence))


def sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of ``text`` (long ones cut into ``_SLICE``-character slices)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _SPLIT.finditer(text):
        spans.extend(_slices(text, pos, m.start()))
        pos = m.end()
    spans.extend(_slices(text, pos, len(text)))
    return spans


def _slices(text: str, start: int, end: int) -> list[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    if start >= end:
        return []
    return [(a, min(end, a + _SLICE)) for a in range(start, end, _SLICE)]


def candidate_sentences(text: str) -> list[tuple[int, int]]:
    """The spans of the sentences of ``text`` that :func:`is_candidate`."""
    return [(a, b) for a, b in sentences(text) if is_candidate(text[a:b])]


#: A word in a script that writes its vowels and is read letter by letter into Latin ones:
#: Cyrillic, Greek, Armenian, Georgian, Ethiopic, the Indic scripts, Thai (not Arabic or
#: Hebrew, written without most vowels, nor Han, whose drug names are translated).
_SPELLED_WORD = re.compile(
    "[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u10a0-\u10ff\u1200-\u139f"
    "\u0900-\u0dff\u0e00-\u0e7f]{4,}"
    # ... and Latin words with a diacritic ("paracétamol", "ibuprofène", "ténofovir")
    "|[a-z\u00e0-\u024f]*[\u00e0-\u024f][a-z\u00e0-\u024f]*"
)
_NOT_LETTER = re.compile(r"[^a-z]")


def transliterated_terms(text: str, drugs_only: bool = False) -> list[tuple[int, int]]:
    """Spans of words of another script that read, letter by letter in Latin (``anyascii``),
    as a drug or condition name of the vocabularies ("эналаприл" is enalapril, "ኢንሱሊን"
    insulin) or start with a stem of five letters or more ("диабет"); ``drugs_only``: the
    drug names alone."""
    if text.isascii():
        return []
    wanted = _DRUG if drugs_only else _TERM
    spelled = _SPELLED_WORD.finditer(text.lower())
    return [m.span() for m in spelled if _reading(m.group(0)) >= wanted]


#: What a spelled word reads as (:func:`_reading`): nothing, a health word, a drug's name.
_NOTHING, _TERM, _DRUG = 0, 1, 2


@lru_cache(maxsize=4096)
def _reading(word: str) -> int:
    """What ``word`` reads as in Latin letters; each word is transliterated once, whether
    :func:`health_terms` or the health head's fail-closed reading asks."""
    latin = _NOT_LETTER.sub("", anyascii(word).lower())
    if len(latin) < 5:
        return _NOTHING
    if _drug_spelling(latin, _drugs()):
        return _DRUG
    words, stem, _ = _vocab()
    hit = stem.match(latin)
    return _TERM if latin in words or (hit is not None and hit.end() >= 5) else _NOTHING


def _drug_spelling(latin: str, drugs: frozenset[str]) -> bool:
    """Whether ``latin`` is a drug's name, or one as many languages end it ("ibuprofene",
    "sertralina", "metformina": the name's last letter changed or added)."""
    if latin in drugs:
        return True
    return len(latin) >= 7 and (latin[:-1] in drugs or latin[:-1] + "e" in drugs)


@lru_cache(maxsize=1)
def _drugs() -> frozenset[str]:
    return frozenset(DRUGS.split())
