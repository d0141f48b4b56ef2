"""The offline router's cue words in the languages users write in (a kept vocabulary).

The router's linear head learned what its lexical cues mean from an English bank
(:mod:`.cues`): "today" marks something for this session, "always" or "from now on" a standing
wish, "please" or "you" an order to the assistant, "I" or "my" the user's own life. The head
reads a cue, not a word, so the same cue said in Polish, Korean or Hinglish carries the same
weight: these lists map the markers of other languages onto the English cues. "Today", "now"
and "this week" come from CLDR (:mod:`.time_words_data`); the rest is kept here by hand, a few
words a language, each a marker a speaker of that language uses unprompted.

Matching (:func:`vocabulary_pattern`): words of scripts written with spaces between words match
whole; Korean words match at a word's start (particles follow them: 오늘은, 항상); Chinese,
Japanese and Thai words match anywhere (no spaces between words).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: "Always", "every time", "whenever": a standing wish.
ALWAYS = """
siempre|cada vez|siempre que|toujours|chaque fois|à chaque fois|immer|jedes mal|immer wenn|
wann immer|sempre|ogni volta|toda vez|sempre que|altijd|elke keer|telkens|zawsze|za każdym razem|
każdym razem|vždy|pokaždé|mereu|întotdeauna|mindig|valahányszor|hep|her zaman|her seferinde|daima|
alltid|altid|aina|πάντα|всегда|каждый раз|всякий раз|завжди|щоразу|кожного разу|دائما|دايما|
كل ما|كلما|كل مرة|همیشه|هر وقت|هر بار|תמיד|כל פעם|hamesha|humesha|jab bhi|har baar|har bar|
हमेशा|जब भी|हर बार|সবসময়|সব সময়|যখনই|எப்போதும்|ஒவ்வொரு முறையும்|selalu|sentiasa|senantiasa|
setiap kali|tiap kali|palagi|parati|tuwing|kila mara|daima|いつも|常に|毎回|たびに|항상|늘|
언제나|매번|때마다|总是|總是|每次|每当|每當|luôn|luôn luôn|mỗi khi|mỗi lần|เสมอ|ทุกครั้ง|altyd|
elke keer|ayeways
"""

#: "Tonight" and the forms of "today" CLDR does not give (it has one word a language).
TONIGHT = """
esta noche|hoy en la noche|ce soir|heute abend|stasera|hoje à noite|hoje de noite|vanavond|
dziś|dzis|dziś wieczorem|bu akşam|ma este|сегодня вечером|сьогодні ввечері|الليلة|امشب|הערב|
aaj|aaj raat|aaj shaam|आज रात|आज शाम|আজ রাতে|malam ini|mamaya|mamayang gabi|usiku wa leo|
本日|今夜|今晩|今晚|오늘 밤|오늘 저녁|tối nay|vanaand|dis evening
"""

#: "From now on", "from today on": a standing wish that starts now.
FROM_NOW_ON = """
de ahora en adelante|a partir de ahora|desde ahora|en adelante|désormais|desormais|dorénavant|
dorenavant|à partir de maintenant|a partir de maintenant|à l'avenir|a l'avenir|ab jetzt|
von nun an|ab sofort|künftig|kunftig|kuenftig|in zukunft|d'ora in poi|da ora in poi|
da adesso in poi|d'ora in avanti|in futuro|de agora em diante|daqui pra frente|
daqui para a frente|daqui para frente|a partir de agora|vanaf nu|voortaan|od teraz|od dziś|
od dzisiaj|na przyszłość|odtąd|mostantól|ezentúl|bundan sonra|bundan böyle|отныне|
с этого момента|впредь|відтепер|надалі|з цього часу|من اليوم ورايح|من الآن فصاعدا|
من الان فصاعدا|از این به بعد|از حالا به بعد|מעכשיו|מהיום|aage se|aagey se|ab se|आगे से|अब से|
এখন থেকে|இனிமேல்|mulai sekarang|mulai hari ini|lepas ni|simula ngayon|mula ngayon|kuanzia leo|
kuanzia sasa|tangu sasa|今後|これから|以後|앞으로|이제부터|以后|今后|
以後|從現在起|从现在起|từ nay|từ giờ|ต่อไปนี้|
van nou af|d'ara endavant|a partir d'ara|från och med nu|fran och med nu|from here on out|
fae noo on
"""

#: "Without asking me": the assistant acts on the user's behalf (an instruction to review).
WITHOUT_ASKING = """
sin preguntarme|sin consultarme|sans me demander|sans me consulter|ohne mich zu fragen|
ohne rückfrage|senza chiedermi|sem me perguntar|sem me consultar|sem perguntar|nem precisa me
consultar|zonder te vragen|zonder het mij te vragen|bez pytania|nie musisz mnie pytać|
bez mojej zgody|bana sormadan|sormadan|bana sorma|kérdezés nélkül|megkérdezés nélkül|
не спрашивая|без спроса|без мого дозволу|не питаючи|بدون ما تسألني|بدون ما تسأل|
بدون اینکه از من بپرسی|bina pooche|bina puche|बिना पूछे|tanpa tanya|tak payah tanya|
tanpa bertanya|no need magtanong|wag mo na akong tanungin|bila kuniuliza|確認なしで|聞かずに|
안 물어봐도|묻지 말고|물어보지 말고|不用问我|不必问我|không cần hỏi|sonder om te vra|
without checking wi me|nae need tae check
"""

#: "Automatically" and automated replies or forwards: a standing order about what the
#: assistant does on its own.
AUTOMATICALLY = """
automatically|auto-reply|auto reply|autoreply|auto-forward|auto forward|auto-post|auto post|
automatisch|automatiquement|automáticamente|automaticamente|automaticament|automatikusan|
automatycznie|automaticky|automaticamente|automaattisesti|automatisk|automatiskt|automatikong|
otomatis|secara otomatis|otomatik olarak|otomatikman|tự động|kiotomatiki|αυτόματα|
автоматически|автоматично|автоматом|אוטומטית|تلقائيا|تلقائياً|بشكل تلقائي|خودکار|
स्वचालित रूप से|अपने आप|আপনা আপনি|স্বয়ংক্রিয়ভাবে|自動で|自動的に|自动|自動|자동으로|
avtomatik|avtomatik olaraq|avtomatik tarzda|automaatselt|automātiski|automatiškai|automatski|
автоматски|аўтаматычна|автоматтық түрде|ავტომატურად|ավտոմատ կերպով|automatikisht|sjálfkrafa|
kwa otomatiki|ដោយស្វ័យប្រវត្តិ|အလိုအလျောက်|ස්වයංක්‍රීයව|தானாக|స్వయంచాలకంగా
"""

#: "Forget", "delete", "erase" addressed to the assistant (mostly imperatives).
FORGET = """
olvida|olvídalo|olvídate|borra|bórralo|elimina|elimínalo|oublie|oubliez|oublie ça|efface|
effacez|supprime|supprimez|vergiss|vergessen sie|lösch|lösche|löschen sie|dimentica|
dimenticati|cancella|esquece|esqueça|esquecer|apaga|apague|deleta|exclui|vergeet|verwijder|
wis|zapomnij|zapomnijcie|wymaż|skasuj|usuń|unut|unutun|sil|silin|aklından çıkar|felejtsd el|
töröld|забудь|забудьте|удали|удалите|сотри|видали|зітри|انسى|انسي|امسح|احذف|فراموش کن|
پاک کن|תשכח|תמחק|bhool jao|bhool ja|bhul jao|mita do|hata do|भूल जाओ|मिटा दो|हटा दो|
ভুলে যাও|মুছে ফেলো|lupakan|hapus|padam|kalimutan|burahin|tanggalin|pakitanggal|pakibura|
sahau|futa|忘れて|削除して|消して|잊어|지워|삭제해|기억하지 말아|忘记|忘掉|删除|刪除|quên|xóa|
xoá|comot am|forget am|bin it
"""

#: More ways to tell the assistant to forget, read only by :func:`~.cue_words.tells_to_forget`
#: (the router's cue vector reads :data:`FORGET` alone: its heads were trained on it).
FORGET_MORE = """
pakilimutan|kalimutan mo|gleymdu|gleymið|eyddu|eyðið|唔好記住|唔使記住|唔好記|別記住|别记住|
不要记住|不要記住|yaad mat rakhna|yaad na rakhna|bhool jaana|bhool jayein|bhula do|
oublie ça|oubliez ça|tu l'oublies|vous l'oubliez|vergiss das|vergessen sie das|olvida eso|
esqueça isso|esquece isso|dimentica questo|unut gitsin|забудь об этом|забудьте про|
забудь про|забудьте про це|забудь про це|poista|poistakaa|unohda|unohtakaa|ξέχασε|ξεχάστε|
σβήσε|σβήστε|διέγραψε|διαγράψτε|sangula|sangulawo|erabira|zapomeň|zapomeňte|smaž|smažte|
vymaž|vymažte|odstraň|zabudni|zabudnite|zmaž|uită|uitați|șterge|ștergeți|sterge|glem|glemt det|
slett|radera|glöm|ลบข้อมูล|ลืมเรื่อง|ลืมที่|dileu|anghofia|lupain|lalekake|busak|hapusen|
zaboravi|zaboravite|obriši|obrišite|izbriši|izbrišite|obrisi|izbrisi|pobriši|заборави|
заборавите|обриши|избриши|избришите|забрави|забравете|изтрий|изтрийте|pozabi|pozabite|zbriši|
pamiršk|pamirškite|ištrink|ištrinkite|aizmirsti|izdzēs|izdzēsiet|unusta|unustage|kustuta|
kustutage|harroje|harrojeni|fshije|fshijeni|დაივიწყე|წაშალე|մոռացիր|ջնջիր|ұмыт|өшір|
o'chir|o'chirib tashla|unutib yubor|мартчих|устга|እርሳው|አጥፋው|ሰርዝ|बिर्सिदेऊ|बिर्सनुहोस्|
मेटाइदेऊ|हटाइदेऊ|मेटाउनुहोस्|हटाउनुहोस्|بھول جاؤ|مٹا دو|ہٹا دو|மறந்துவிடு|அழித்துவிடு|మర్చిపో|
తొలగించు|ಮರೆತುಬಿಡು|ಅಳಿಸು|മറന്നേക്കൂ|മായ്ക്കൂ|विसरून जा|पुसून टाक|ભૂલી જા|ભૂંસી નાખ|ਭੁੱਲ ਜਾ|
අමතක කරන්න|මකන්න|ลบเรื่อง|ลบที่|ลืมไปเลย|فسخ|فسخه|فسخها|امسحه|امسحها|احذفه|احذفها|انساه|
انساها|نحيه|نحيها|شيله|شيلها|فراموشش کن|پاکش کن|oblida|oblideu|esborra|esborreu|ahaztu|
ezabatu|ħassar|déan dearmad|scrios|gløym|gløym det|slet det|chefuo|gbagbe|khohlwa
"""

#: Requests to forget or delete in languages whose verb ends the clause (Nepali, Hindi, Urdu,
#: Bengali, Marathi, Gujarati, Punjabi, Tamil, Telugu, Kannada, Malayalam, Sinhala, Persian,
#: Turkic languages, Korean, Mongolian, Amharic), read only at a clause's end by
#: :func:`~.cue_words.tells_to_forget`: request forms only ("please forget"), never "I forgot".
FORGET_AT_END = """
बिर्सिदिनुहोस्|बिर्सिदिनुस्|बिर्सिनुस्|बिर्सनुस्|बिर्सनुहोस्|बिर्सिदेऊ|बिर्सिदेउ|मेटाइदिनुहोस्|
मेटाइदिनुस्|मेटाइदेऊ|हटाइदिनुहोस्|हटाइदिनुस्|हटाइदेऊ|मेटाउनुहोस्|हटाउनुहोस्|भूल जाओ|भूल जाइए|
भूल जाइये|भूल जाना|मिटा दो|मिटा दीजिए|हटा दो|हटा दीजिए|डिलीट कर दो|डिलीट कर दीजिए|bhool jao|
bhool jaiye|bhool jaana|bhul jao|mita do|hata do|delete kar do|delete kardo|بھول جاؤ|بھول جائیں|
مٹا دو|مٹا دیں|ہٹا دو|ہٹا دیں|ڈیلیٹ کر دو|ভুলে যাও|ভুলে যান|মুছে ফেলো|মুছে ফেলুন|विसरून जा|
पुसून टाक|पुसून टाका|काढून टाका|ભૂલી જા|ભૂલી જાઓ|ભૂંસી નાખ|ભૂંસી નાખો|ਭੁੱਲ ਜਾ|ਭੁੱਲ ਜਾਓ|
ਮਿਟਾ ਦਿਓ|மறந்துவிடு|மறந்துவிடுங்கள்|அழித்துவிடு|அழித்துவிடுங்கள்|நீக்கிவிடு|మర్చిపో|మర్చిపోండి|
తొలగించు|తొలగించండి|ಮರೆತುಬಿಡು|ಮರೆತುಬಿಡಿ|ಅಳಿಸಿಬಿಡಿ|മറന്നേക്കൂ|മറന്നേക്ക്|മായ്ക്കൂ|
අමතක කරන්න|මකන්න|මකා දමන්න|فراموش کن|فراموشش کن|پاک کن|پاکش کن|حذف کن|حذفش کن|unut|unutun|
silin|unutunuz|o'chiring|unuting|ұмытыңыз|өшіріңіз|ұмыт|өшір|잊어줘|잊어 줘|잊어주세요|잊어 주세요|
지워줘|지워 줘|지워주세요|지워 주세요|삭제해줘|삭제해 줘|삭제해주세요|삭제해 주세요|мартчих|устга|
እርሳው|አጥፋው|ሰርዝ
"""

#: "Please" and its kin: a request addressed to the assistant.
PLEASE = """
por favor|s'il te plaît|s'il vous plaît|stp|svp|bitte|per favore|per piacere|pfv|pfvr|
alsjeblieft|alstublieft|proszę|prosze|lütfen|kérlek|kérem|légyszi|пожалуйста|будь ласка|
لو سمحت|من فضلك|رجاء|لطفا|لطفاً|בבקשה|kripya|कृपया|ज़रा|দয়া করে|தயவுசெய்து|
tolong|mohon|paki|pakiusap|tafadhali|naomba|ください|下さい|お願い|주세요|부탁|请|請|làm ơn|
asseblief|abeg|beg yuh|gie us
"""

#: The user speaking of themselves: "I", "my", "we" in other languages.
FIRST_PERSON = """
yo|mi|mis|mío|mía|je|moi|mon|ma|mes|ich|mich|mir|mein|meine|meinen|meiner|io|mio|mia|miei|
eu|meu|minha|meus|minhas|ik|mij|mijn|ja|mnie|mój|moja|moje|moim|mojej|bana|beni|benim|
én|engem|nekem|я|меня|мне|мой|моя|моё|мои|мене|мені|мій|моє|أنا|عندي|אני|שלי|mera|
meri|mujhe|hamara|hamari|hamare|मैं|मेरा|मेरी|मेरे|मुझे|हम|हमारे|हमारा|हमारी|আমি|
আমার|আমাকে|நான்|என்|எனக்கு|என்னை|saya|aku|ako|akin|namin|kami|mimi|yangu|wangu|changu|nina|
私|僕|俺|わたし|저|제|나|내|저는|나는|저희|我|tôi|mình|masel|wir|nós|nosotros|nous|
"""


def fold_apostrophes(text: str) -> str:
    """``text`` with typographic apostrophes as plain ones (the vocabularies use plain)."""
    return text.replace("\u2019", "'")


def _words(block: str) -> tuple[str, ...]:
    return tuple(
        w.strip().lower().replace("\u2019", "'")
        for w in block.replace("\n", " ").split("|")
        if w.strip()
    )


def _unspaced(word: str) -> bool:
    """Whether ``word`` is in a script written without spaces between words."""
    return any(
        unicodedata.name(ch, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "THAI")) for ch in word
    )


def _hangul(word: str) -> bool:
    return any(unicodedata.name(ch, "").startswith("HANGUL") for ch in word)


def vocabulary_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """One case-insensitive pattern for ``words`` (see the module's note on matching)."""
    whole, prefix, anywhere = [], [], []
    for word in sorted(set(words), key=lambda w: (-len(w), w)):
        escaped = re.escape(word).replace(r"\ ", r"\s+")
        if _unspaced(word):
            anywhere.append(escaped)
        elif _hangul(word):
            prefix.append(escaped)
        else:
            whole.append(escaped)
    parts = []
    if whole:
        parts.append(rf"(?<![^\W_])(?:{'|'.join(whole)})(?![^\W_])")
    if prefix:
        parts.append(rf"(?<![^\W_])(?:{'|'.join(prefix)})")
    if anywhere:
        parts.append(f"(?:{'|'.join(anywhere)})")
    return re.compile("|".join(parts) or r"(?!)", re.IGNORECASE)


ALWAYS_WORDS = _words(ALWAYS)
FROM_NOW_ON_WORDS = _words(FROM_NOW_ON)
WITHOUT_ASKING_WORDS = _words(WITHOUT_ASKING)
AUTOMATICALLY_WORDS = _words(AUTOMATICALLY)
TONIGHT_WORDS = _words(TONIGHT)
FORGET_WORDS = _words(FORGET)
FORGET_MORE_WORDS = _words(FORGET_MORE)
FORGET_AT_END_WORDS = _words(FORGET_AT_END)
PLEASE_WORDS = _words(PLEASE)
FIRST_PERSON_WORDS = _words(FIRST_PERSON)

#: "Always", "every time" and "from now on": what makes a statement lasting (the router's
#: lasting cue and the harm table's ``says_lasting`` read this one pattern).
LASTING_PATTERN = vocabulary_pattern((*ALWAYS_WORDS, *FROM_NOW_ON_WORDS))
