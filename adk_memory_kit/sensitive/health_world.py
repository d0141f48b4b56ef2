"""Health words of many languages: one concept table, read where the health head is absent.

The health head (:mod:`~adk_memory_kit.sensitive.health_model`) decides with its encoder;
without it, a sentence is decided by its vocabulary, failing closed (see
:class:`~adk_memory_kit.sensitive.health_meaning.MeaningHealthDetector`), and the findings of
a sentence judged health span these words.

The table is concepts by language, not phrasings: disease, diagnosis, doctor, hospital,
medicine, treatment, surgery, and the conditions most often named (diabetes, insulin,
depression, anxiety and panic, PTSD, bipolar, cancer and chemotherapy, asthma, thyroid,
pregnancy and miscarriage, HIV, tuberculosis, epilepsy, dementia, sclerosis, allergy,
dialysis, blood pressure, psychiatry, antidepressants) in Japanese, Korean, Chinese, Arabic,
Persian, Hebrew, Hindi (Devanagari and romanised), Bengali, Tamil, Thai, Turkish, Polish,
Swahili, Malay and Indonesian, Tagalog, Ukrainian, Russian, Greek, Hungarian, Finnish,
Dutch, Vietnamese, and words missing from the seven languages of the pre-filter.

Matching: in scripts whose words take glued prefixes or no spaces (Arabic, Persian, Hebrew,
Devanagari, Bengali, Tamil, Thai, CJK, Hangul) an entry matches anywhere; elsewhere an entry
ending in ``*`` matches a word start and any other entry a whole word. Linear: one word
split and one prefix-tree pass.
"""

from __future__ import annotations

import re
from functools import lru_cache

from adk_memory_kit.sensitive.base import prefix_tree

_SPACED = """
ja: 花粉症 休職 甲状腺 結核 精神 過敏 抗うつ 睡眠薬 服薬 点滴 陣痛 がん剤 乳がん
ko: 병원 진단 우울증 우울 공황 불안장애 당뇨 유방암 폐암 위암 항암 천식 갑상선 처방
    복용 수술 치료 임신 유산했 치매 뇌졸중 심장마비 알레르기 투석 조울증 양극성 외상후 결핵
    인슐린 항우울제 정신과 에이즈 약을-먹
zh: 诊断 抑郁症 抑郁 糖尿病 癌症 乳腺癌 化疗 哮喘 医院 医生 手术 怀孕 流产 焦虑症 惊恐 艾滋
    结核 甲状腺 胰岛素 透析 过敏 精神科 抗抑郁 吃药
ar: سكري السكري مرض مريض تشخيص شخصوني دكتور طبيب مستشفى دواء أدوية ادوية علاج جراحية اكتئاب
    نوبات-هلع سرطان الربو ربو إنسولين انسولين أنسولين الغدة-الدرقية حامل إجهاض اجهاض صرع خرف
    زهايمر ضغط-الدم حساسية غسيل-الكلى الإيدز السل نفسي
fa: افسردگی دیابت قند-خون سرطان دکتر پزشک بیمارستان دارو قرص درمان جراحی اضطراب آسم انسولین
    تیروئید باردار حاملگی سقط-جنین صرع آلزایمر فشار-خون آلرژی دیالیز ایدز بیماری تشخیص
    روانپزشک نسخه فلوکستین
he: אובחנ אבחנה אבחון רופא בית-חולים תרופה תרופות טיפול ניתוח דיכאון חרדה קוטבית סרטן סוכרת
    אסטמה אינסולין בלוטת-התריס הריון הפלה אפילפסיה דמנציה לחץ-דם אלרגיה דיאליזה איידס ליתיום
    פסיכיאטר מחלה חולה
hi: बीमारी डॉक्टर अस्पताल दवा दवाई इलाज ऑपरेशन डिप्रेशन अवसाद मधुमेह डायबिटीज कैंसर दमा अस्थमा
    इंसुलिन थायराइड गर्भवती गर्भपात मिर्गी टीबी क्षय-रोग एचआईवी ब्लड-प्रेशर
bn: রোগ অসুখ ডাক্তার হাসপাতাল ওষুধ চিকিৎসা অপারেশন ডায়াবেটিস ক্যান্সার হাঁপানি অ্যাজমা
    থাইরয়েড থাইরক্সিন ইনসুলিন বিষণ্ণতা ডিপ্রেশন গর্ভবতী টিবি
ta: நோய் மருத்துவர் டாக்டர் மருத்துவமனை மருந்து சிகிச்சை அறுவை நீரிழிவு சர்க்கரை புற்றுநோய்
    ஆஸ்துமா இன்ஹேலர் இன்சுலின் தைராய்டு மன-அழுத்தம் கர்ப்ப காசநோய்
th: โรค ซึมเศร้า เบาหวาน มะเร็ง หอบหืด โรงพยาบาล ผ่าตัด รักษา ตั้งครรภ์ แท้ง ความดันโลหิต
    ภูมิแพ้ อินซูลิน ไทรอยด์ วัณโรค เอชไอวี จิตแพทย์ กินยา หมอให้ยา
"""

#: Words of spaced scripts: ``*`` marks a stem (matched at a word start).
_WORDS = """
tr: hastalı* hastayım hastane* teşhis* tanısı* doktor* ilaç* tedavi* ameliyat* depresyon*
    anksiyete* panik-atak* kanser* diyabet* şeker-hastası* astım* insülin* tiroid* hamile*
    epilepsi* demans* tansiyon* alerji* diyaliz* skleroz* fıtığı* kemoterapi* psikiyatr*
    antidepresan*
pl: chorob* choruj* diagnoz* lekarz* szpital* leki leków lekarstw* tabletk* leczeni* leczę
    depresj* nerwic* nowotw* raka cukrzyc* insulin* astm* tarczyc* niedoczynn* nadczynn*
    ciąż* poronien* padaczk* epilepsj* demencj* alergi* dializ* stwardnieni* chemioterapi*
    psychiatr* antydepresant*
sw: ugonjwa magonjwa mgonjwa kisukari daktari hospitali dawa sindano insulini saratani pumu
    shinikizo-la-damu ukimwi kifua-kikuu mimba mjamzito kifafa kansa matibabu upasuaji vidonge
ms: penyakit sakit doktor dokter ubat obat rawatan perawatan pembedahan kencing-manis kanser
    kanker asma hamil keguguran kemurungan depresi kecemasan darah-tinggi alahan dialisis
    cuci-darah tibi strok
tl: gamot ospital nagpapagamot
hi-latn: bimari bimaar beemari dawai davai dawaiyan ilaaj ilaj mareez
uk-ru: хвороб* хворі* болезн* болею діагноз* диагноз* лікар* врач* больниц* ліки ліків
    лекарств* таблет* лікуван* лечени* депресі* депресси* тривожн* тревожн* панічн*
    паническ* птср посттравмат* раком онколог* діабет* диабет* інсулін* инсулин* астм*
    щитовидн* вагітн* беремен* викидень выкидыш* епілепс* эпилепс* деменці* деменци*
    алергі* аллерги* діаліз* диализ* склероз* хіміотерапі* химиотерапи* психіатр* психиатр*
    антидепресант* віл вич туберкульоз* туберкулез*
el: κατάθλιψ* διάγνωσ* γιατρ* νοσοκομεί* φάρμακ* θεραπεί* εγχείρησ* χειρουργ* διαβήτ*
    ινσουλίν* καρκίν* άσθμα θυρεοειδ* έγκυος εγκυμοσύν* αποβολ* επιληψ* άνοια αλλεργ*
    αιμοκάθαρσ* σκλήρυνσ* χημειοθεραπ* ψυχίατρ* αντικαταθλιπτ* άγχος πανικ*
hu: beteg* cukorbeteg* diagnosz* orvos* kórház* gyógyszer* kezelés* műtét* depresszi*
    szorong* pánik* rákos daganat* cukorbaj* inzulin* asztm* pajzsmirigy* terhes* vetél*
    epilepszi* demencia vérnyomás* allergi* dialízis* szklerózis* kemoterápi* pszichiát*
    antidepressz*
fi: sairau* sairas* diagnoos* lääkär* sairaal* lääke* lääkkei* lääkity* leikkau* masennu*
    ahdistu* paniikkihäiriö* syöpä* syöv* diabete* insuliin* astma* kilpirauha* raskaus*
    raskaana keskenmen* epilepsi* dementi* verenpain* allergi* dialyysi* keliakia*
    skleroosi* psykiatr*
nl: ziek* diagnose dokter huisarts* medicijn* pillen behandel* operatie* depressie*
    angststoorn* paniekaanval* kanker* suikerziekte insuline astma schildklier* zwanger*
    miskraam* epilepsie dementie bloeddruk* allergie* dialyse psychiater* antidepressiv*
    ivf-traject* punctie
vi: bệnh bác-sĩ thuốc điều-trị phẫu-thuật trầm-cảm lo-âu ung-thư tiểu-đường hen-suyễn
    tuyến-giáp mang-thai sảy-thai động-kinh huyết-áp dị-ứng chạy-thận
de: bandscheib* hausarzt* hausärzt* zöliakie krankgeschrieben krankschreib* schilddrüs*
    facharzt* psychotherap* diabetiker* rollstuhl*
fr: épuisement arrêt-maladie arrêt-de-travail cœliaque coeliaque fauteuil-roulant
pt: baixa-médica cadeira-de-rodas celíaca celíaco
"""


def _entries(table: str) -> list[str]:
    out = []
    for line in table.split("\n"):
        body = line.split(":", 1)[1] if ":" in line[:8] else line
        out.extend(body.split())
    return out


_SPACED_ENTRIES = [e.replace("-", " ") for e in _entries(_SPACED)]
_WORD_ENTRIES = [e.replace("-", " ") for e in _entries(_WORDS)]


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    anywhere = re.compile(prefix_tree(sorted(set(_SPACED_ENTRIES))))
    stems = sorted({e[:-1] for e in _WORD_ENTRIES if e.endswith("*")})
    whole = sorted({e for e in _WORD_ENTRIES if not e.endswith("*")})
    words = re.compile(
        r"(?<![^\W\d_])(?:(?:" + prefix_tree(stems) + r")[^\W\d_]*|(?:"
        + prefix_tree(whole) + r")(?![^\W\d_]))"
    )  # fmt: skip
    return anywhere, words, re.compile(prefix_tree(stems + whole))


def world_terms(text: str) -> list[tuple[int, int]]:
    """Spans of the table's words in ``text`` (lower-cased when that keeps its length)."""
    lower = text.lower()
    if len(lower) != len(text):
        lower = text
    anywhere, words, gate = _patterns()
    # most texts hold none of the words: one search for any entry, anywhere, first
    spans = [m.span() for m in words.finditer(lower)] if gate.search(lower) else []
    if not lower.isascii():
        spans += [m.span() for m in anywhere.finditer(lower)]
    return sorted(spans)
