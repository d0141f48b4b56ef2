"""Whether a message asks to keep what it gives secret ("don't tell anyone", "wag mo
sabihin", "μην το πεις", "ne le donne pas", "nicht weitergeben"), in about thirty
languages.

Guarantee: :func:`asks_secrecy` is true when one of the phrases stands as whole words (or
anywhere, in scripts written without spaces). Linear: one pass.
"""

from __future__ import annotations

from functools import lru_cache

from adk_memory_kit.sensitive.vocab import Vocabulary

_PHRASES = """
secret|secreto|secreta|segreto|geheim|geheime|geheimes|hemmelig|hemmeligt|salainen|sekret|
gizli|rahasia|privé|privado|privada|privato|privata|confidential|confidencial|
don't tell|dont tell|do not tell|don't share|dont share|do not share|don't give|dont give|
do not give|tell no one|no one|nobody|anybody|not for distribution|keep it private|
keep private|never share|never put|don't put|dont put|don't be giving|not for the|
must not appear|ex-directory|unlisted|keinesfalls|an dritte|
sag es niemandem|inte spridas|får inte|nie dla|geheim houden|ne pas le donner|
ne pas la donner|ne le donne pas|ninguém sabe|jangan|alleen voor|
nadie|personne|niemand|niemandem|nessuno|ninguém|nikomu|nikomus|niemanden|
ne le dis|ne le donne|ne la donne|ne les donne|nicht weitergeben|non lo dire|non dirlo|
no se lo des|no lo compartas|não partilhes|não contes|niet doorgeven|niet delen|
ikke del|ikke giv|älä näytä|älä kerro|nie mów|nie podawaj|nikomu nie|
kahit kanino|wag mo sabihin|huwag|jangan kasih tahu|jangan disebar|
никому|не говори|μην|κανέναν|neb|sakın|kimseye|between us|entre nous|entre nosotros|
unter uns|tra di noi|entre nós|keep this to yourself|keep it to yourself|just between|
mat batana|mat batao|kisi ko mat|kisiko mat|usiambie|usimwambie|siri|jangan bagi|
nikomu nie mów|не кажи|не розповідай|ні кому|ніколи не|kimseye söyleme|senki|ne mondd|
älä kerro kenellekään|μην πεις|non dirlo a nessuno
"""
_SCRIPTS = (
    "誰にも|秘密|教えないで|아무에게도|비밀|알려주지|말하지 마|말하지마|不要告诉|别告诉|保密|"
    "סוד|אל תגיד|לא לספר|لا تخبر|سر|"
    "모르게|비밀로|لأحد|لا تقول|به کسی نگو|به هیچکس|किसी को मत|মত বলো|কাউকে বলো না|யாரிடமும்"
)
_ASKS = Vocabulary(_PHRASES + "|" + _SCRIPTS)


@lru_cache(maxsize=8)
def asks_secrecy(text: str) -> bool:
    """Whether ``text`` asks to keep something secret (see the module docstring)."""
    return _ASKS.found_in(text)
