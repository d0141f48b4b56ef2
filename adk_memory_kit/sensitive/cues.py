"""Cue words, in about twenty languages, that say a value nearby is a secret, and its kind.

One vocabulary serves the fail-closed layer (:mod:`~adk_memory_kit.sensitive.failclosed`):
each cue is a lower-case literal with its kind and strength. A *strong* cue (password, PIN,
recovery, routing, passport ...) names a secret outright and counts at either sensitivity; a
*weak* cue (key, id, account, code, licence ...) has harmless senses too and counts only at
``strict``. Languages: English, Spanish, French, German, Portuguese, Italian, Japanese (every
kind, weak cues too); Dutch, Swedish, Danish, Norwegian, Finnish, Polish, Turkish, Indonesian
and Malay, Vietnamese, Korean, Chinese, Russian and Arabic (strong cues), and the national
id names of Nigeria, Kenya, Singapore and Brazil; the words for a password and a one-time
code in Catalan, Hungarian, Czech, Romanian, Greek, Hebrew, Persian, Bengali, Hindi, Tamil,
Thai, Swahili, Croatian, Slovenian, Estonian and Ukrainian (strong cues).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from adk_memory_kit.sensitive.base import (
    BANK_ACCOUNT,
    CREDENTIAL,
    GOVERNMENT_ID,
    PAYMENT_CARD,
    RECOVERY,
    prefix_tree,
)


class Cue(NamedTuple):
    kind: str
    strong: bool


#: Cues whose value may be 3 digits (a card's security code, a PIN).
SHORT_VALUE_CUES = frozenset("cvv cvv2 cvc cid csc pin pin code security code".split())


def _words(block: str) -> list[str]:
    return [w.strip() for w in block.split("|") if w.strip()]


#: (kind, strong, literals). Literals are lower case; spaces match one space.
_TABLE: tuple[tuple[str, bool, str], ...] = (
    (
        CREDENTIAL,
        True,
        """
        password|passwords|passwd|passcode|passphrase|pwd|pw|pin|pin code|pin number|pins|
        sudo|psk|pre-shared key|wpa key|lockbox|padlock|keypad|cvv|cvv2|cvc|cid|csc|
        keypad code|lockbox code|combination|combo|access code|entry code|security code|
        login|log-in|logins|credentials|creds|username and password|user and pass|
        secret|secrets|api key|apikey|token|tokens|access key|secret key|private key|
        wifi password|wifi key|wi-fi password|
        contraseña|contrasena|clave|código de acceso|
        pin de|usuario y contraseña|credenciales|
        mot de passe|mdp|code d'accès|code secret|digicode|
        identifiants|code pin|
        passwort|kennwort|zugangscode|zugangsdaten|geheimzahl|
        schlüssel|anmeldedaten|
        senha|código de acesso|credenciais|chave de acesso|
        codice di accesso|credenziali|chiave|
        パスワード|暗証番号|暗証|パスコード|ログイン|認証情報|合言葉|秘密鍵|
        wachtwoord|pincode|toegangscode|inloggegevens|
        lösenord|lösen|pinkod|inloggningsuppgifter|
        adgangskode|kodeord|passord|pinkode|
        salasana|tunnussana|pin-koodi|
        hasło|haslo|kod pin|kod dostępu|dane logowania|
        şifre|sifre|şifresi|sifresi|şifrem|parola|parolası|parolasi|giriş bilgileri|
        kata sandi|sandi|kata laluan|kode akses|kode pin|
        mật khẩu|mat khau|mã pin|
        비밀번호|비번|암호|패스워드|핀번호|
        密码|密碼|口令|
        пароль|пин-код|пин код|код доступа|
        كلمة السر|كلمة المرور|الرقم السري|
        contrasenya|clau d'accés|jelszó|jelszava|jelszavam|heslo|parolă|κωδικός|κωδικό|
        סיסמה|סיסמא|باسوورد|باسورد|پسورد|رمز عبور|পাসওয়ার্ড|পিন|पासवर्ड|கடவுச்சொல்|
        รหัสผ่าน|nenosiri|lozinka|geslo|parool|пін-код|mpin|upi pin|
        neno la siri|የይለፍ ቃል|စကားဝှက်|ពាក្យសម្ងាត់|ລະຫັດຜ່ານ|პაროლი|გაროლი|գաղտնաբառ|
        මුරපදය|ijambo ry'ibanga|iphasiwedi|lykilorð|slaptažodis|fjalëkalimi|şifrə|
        құпия сөз|нууц үг|پاس ورڈ|парола|лозинка|paswot|paswod|
        chave da api|chave de api|chave api|clave de api|clave api|clé api|clé d'api|clé de l'api|
        api-schlüssel|api-schluessel|chiave api|chiave dell'api|api-sleutel|klucz api|
        api anahtarı|kunci api|khóa api|api 키|api密钥|api金鑰|api ключ|ключ api|مفتاح api|
        """,
    ),
    (
        RECOVERY,
        True,
        """
        recovery code|recovery codes|recovery key|recovery phrase|backup code|backup codes|
        seed|seed phrase|seed words|mnemonic|secret phrase|wallet phrase|2fa|2-fa|two-factor|
        mfa|otp|one-time code|one time code|one-time password|verification code|
        sms code|code from sms|code from the sms|code in the sms|otp code|
        authentication code|auth code|security key|setup key|
        authenticator|totp|bitlocker|
        código de verificación|código de recuperación|frase semilla|frase de recuperación|
        código de un solo uso|
        code de vérification|code de récupération|phrase de récupération|code à usage unique|
        clé de récupération|
        bestätigungscode|wiederherstellungscode|wiederherstellungsschlüssel|einmalcode|
        sicherheitscode|
        código de verificação|código de recuperação|frase de recuperação|
        codice di verifica|codice di recupero|frase di recupero|
        認証コード|確認コード|ワンタイム|リカバリーコード|リカバリーキー|回復キー|復旧キー|
        バックアップコード|シードフレーズ|二段階認証|
        シークレット|シークレットキー|引き継ぎコード|
        herstelcode|herstelsleutel|verificatiecode|back-upcode|eenmalige code|
        återställningskod|reservkod|reservkoder|verifieringskod|engångskod|
        gendannelseskode|gjenopprettingskode|bekræftelseskode|bekreftelseskode|engangskode|
        reservekode|reservekoder|
        palautuskoodi|varmistuskoodi|vahvistuskoodi|kertakäyttökoodi|
        kod odzyskiwania|kod weryfikacyjny|kody zapasowe|kod jednorazowy|fraza odzyskiwania|
        kurtarma kodu|doğrulama kodu|yedek kod|
        kode pemulihan|kode verifikasi|kode otp|frasa pemulihan|
        mã khôi phục|mã xác minh|mã otp|
        복구코드|복구 코드|인증번호|인증 코드|인증코드|백업 코드|백업코드|시드 문구|
        恢复码|恢復碼|验证码|驗證碼|备用码|助记词|
        код восстановления|код подтверждения|резервный код|одноразовый код|
        رمز الاسترداد|رمز التحقق|
        egyszer használatos|ellenőrző kód|megerősítő kód|msimbo wa kuthibitisha|
        msimbo wa uthibitisho|kod tac|kod pengesahan|kod otp|код з смс|код із смс|смс-код|
        код підтвердження|كود التحقق|كود تحقق|رمز التفعيل|کد تایید|کد تأیید|ওটিপি|ओटीपी|
        tek kullanımlık|jednorazowy kod|รหัส otp|รหัสยืนยัน|mã xác nhận|
        """,
    ),
    (
        BANK_ACCOUNT,
        True,
        """
        routing number|routing no|routing #|aba|sort code|bsb|ifsc|account number|acct|
        acct no|acc|acc no|a/c|bank account|checking account|savings account|payee|
        beneficiary|account no|account #|
        número de cuenta|cuenta bancaria|clabe|
        numéro de compte|compte bancaire|rib|
        kontonummer|bankleitzahl|blz|bankkonto|
        número da conta|conta bancária|agência|
        numero di conto|conto corrente|
        口座番号|口座|支店番号|
        rekeningnummer|bankrekening|clearingnummer|registreringsnummer|reg.nr|
        tilinumero|pankkitili|numer konta|numer rachunku|rachunek bankowy|
        hesap numarası|nomor rekening|no rek|norek|
        số tài khoản|계좌번호|계좌|银行账号|銀行帳號|银行账户|номер счета|номер счёта|
        расчетный счет|
        رقم الحساب|الحساب البنكي|حساب بنكي|آيبان|ايبان|شماره حساب|شماره شبا|شبا|
        खाता संख्या|खाता नंबर|অ্যাকাউন্ট নম্বর|হিসাব নম্বর|เลขบัญชี|บัญชีธนาคาร|
        αριθμός λογαριασμού|αριθμό λογαριασμού|számlaszám|bankszámla|bankszámlaszám|
        číslo účtu|bankovní účet|bankový účet|cont bancar|număr de cont|numărul contului|
        namba ya akaunti|akaunti ya benki|מספר חשבון|חשבון בנק|номер рахунку|
        банківський рахунок|የባንክ ሂሳብ|ሂሳብ ቁጥር|ဘဏ်အကောင့်|nombor akaun|akaun bank|
        banka hesabı|hesab nömrəsi|sąskaitos numeris|konta numurs|kontonumber|
        """,
    ),
    (
        GOVERNMENT_ID,
        True,
        """
        passport|passport number|passport no|ssn|social security|tax id|tfn|tax file number|
        aadhaar|aadhar|aadhaar number|aadhaar no|pan number|pan card|
        national insurance|ni number|nino|driver's license|drivers license|driver license|
        driving licence|driving license|license number|licence number|dni|nie|nif|cpf|
        national id|id number|id card|medicare number|ppsn|pps number|nric|hkid|curp|
        rfc|cnp|sin|ird number|tax number|tin|itin|voter id|
        pasaporte|número de pasaporte|documento de identidad|
        passeport|carte d'identité|numéro fiscal|numéro de sécurité sociale|
        reisepass|personalausweis|ausweisnummer|steuer-id|steuernummer|
        passaporte|carteira de identidade|
        passaporto|carta d'identità|codice fiscale|
        パスポート|旅券|マイナンバー|免許証|運転免許|
        在留カード|
        bsn|burgerservicenummer|paspoortnummer|paspoort|
        personnummer|samordningsnummer|passnummer|cpr-nummer|fødselsnummer|
        henkilötunnus|hetu|pesel|numer dowodu|dowód osobisty|paszport|
        tc kimlik|kimlik numarası|kimlik no|tckn|pasaport|
        nomor nik|no nik|nik ktp|ktp|npwp|nomor paspor|paspor|
        bvn|kra pin|fin number|cnpj|
        số cmnd|cccd|căn cước|số hộ chiếu|
        주민번호|주민등록번호|여권번호|외국인등록번호|
        身份证号|身份证|身份證|护照号|護照號碼|
        паспорт|снилс|номер паспорта|
        رقم الهوية|الهوية الوطنية|بطاقة الهوية|الرقم المدني|البطاقة المدنية|الرقم الوطني|
        الرقم القومي|جواز السفر|رقم الجواز|رخصة القيادة|رقم الإقامة|الرقم الشخصي|
        کد ملی|شماره ملی|کارت ملی|گذرنامه|شماره گذرنامه|پاسپورت|شماره پاسپورت|گواهینامه|
        شناختی کارڈ|شناختی نمبر|پاسپورٹ|आधार|आधार नंबर|पैन कार्ड|पैन नंबर|पासपोर्ट|
        मतदाता पहचान पत्र|ड्राइविंग लाइसेंस|नागरिकता|জাতীয় পরিচয়পত্র|এনআইডি|পাসপোর্ট|
        জন্ম নিবন্ধন|ஆதார்|கடவுச்சீட்டு|မှတ်ပုံတင်|နိုင်ငံကူးလက်မှတ်|บัตรประชาชน|
        เลขบัตรประชาชน|เลขประจำตัวประชาชน|หนังสือเดินทาง|เลขประจำตัวผู้เสียภาษี|
        អត្តសញ្ញាណប័ណ្ណ|លិខិតឆ្លងដែន|ບັດປະຈຳຕົວ|ໜັງສືຜ່ານແດນ|ජාතික හැඳුනුම්පත|
        αμκα|αφμ|αριθμός ταυτότητας|αριθμό ταυτότητας|ταυτότητα|διαβατήριο|
        инн|водительское удостоверение|загранпаспорт|удостоверение личности|іпн|рнокпп|
        ідентифікаційний код|закордонний паспорт|жсн|иин|егн|лична карта|ембг|jmbg|
        lična karta|licna karta|osobna iskaznica|putovnica|pasoš|תעודת זהות|מספר זהות|
        דרכון|መታወቂያ|ፓስፖርት|kitambulisho|namba ya kitambulisho|nambari ya kitambulisho|
        pasipoti|indangamuntu|személyi igazolvány|személyi szám|adóazonosító|taj szám|
        tajszám|útlevél|rodné číslo|rodne cislo|občanský průkaz|občiansky preukaz|
        cestovní pas|cestovný pas|carte de identitate|pașaport|cédula|cedula|
        cédula de identidad|número de seguridad social|cuil|cuit|nuit|
        bilhete de identidade|cartão de cidadão|título de eleitor|cni|
        carte nationale d'identité|henkilökortti|ajokortti|kennitala|isikukood|
        personas kods|asmens kodas|numri personal|პირადი ნომერი|პასპორტი|անձնագիր|
        şəxsiyyət vəsiqəsi|kad pengenalan|mykad|nombor ic|no ic|id-nommer|id nommer|
        kaarka aqoonsiga|регистрийн дугаар|
        cnic|nicop|nadra|shanakhti card|nid card|nid number|nin number|nin slip|iqama|
        emirates id|ghana card|omang|huduma number|national identity card|
        national identity number|identity number|nic number|
        """,
    ),
    (
        PAYMENT_CARD,
        True,
        """
        visa|mastercard|master card|amex|american express|discover|diners|jcb|unionpay|
        credit card|debit card|card number|card no|card|cc|tarjeta|carte|carte bancaire|
        karte|kreditkarte|cartão|carta di credito|carta|カード|クレジットカード|
        creditcard|betaalpas|kaartnummer|kortnummer|kreditkort|bankkort|betalingskort|
        luottokortti|karta kredytowa|numer karty|kredi kartı|kart numarası|kartu kredit|
        nomor kartu|số thẻ|thẻ tín dụng|카드번호|카드 번호|신용카드|체크카드|
        信用卡|银行卡|卡号|номер карты|кредитная карта|
        رقم البطاقة|بطاقة ائتمان|بطاقة الائتمان|بطاقة مصرفية|شماره کارت|کارت بانکی|
        कार्ड नंबर|क्रेडिट कार्ड|डेबिट कार्ड|บัตรเครดิต|เลขบัตร|αριθμός κάρτας|
        πιστωτική κάρτα|kártyaszám|bankkártya|hitelkártya|číslo karty|platební karta|
        numărul cardului|card bancar|namba ya kadi|kadi ya benki|מספר כרטיס|כרטיס אשראי|
        номер картки|кредитна картка|
        """,
    ),
    (
        CREDENTIAL,
        False,
        """
        code|codes|key|keys|pass|user|username|admin|root|usuario|utilisateur|benutzer|utente|usuário|
        código|codigo|codice|code d'|kód|コード|キー|鍵|
        """,
    ),
    (
        BANK_ACCOUNT,
        False,
        """
        account|routing|savings|checking|credit union|cuenta|compte|konto|conta|conto|bank|
        banco|banque|
        """,
    ),
    (
        GOVERNMENT_ID,
        False,
        """
        id|identity|license|licence|licencia|permis|führerschein|patente|dl|dl#|dln|
        número|numéro|nummer|numero|番号|
        """,
    ),
)

CUES: dict[str, Cue] = {}
for _kind, _strong, _block in _TABLE:
    for _w in _words(_block):
        CUES.setdefault(_w, Cue(_kind, _strong))

_LATIN = "a-z0-9\u00c0-\u024f"
#: Every cue at a word start (Latin cues also at a word end; others anywhere).
_LATIN_START = re.compile(rf"[{_LATIN}]")
_OTHER_CUES = sorted(w for w in CUES if not _LATIN_START.match(w))
#: (a cue in a script written without spaces may follow a Latin word: "wifi密码"). The
#: lookahead before the other scripts' tree is a one-character test that spares the tree's
#: many branches at every Latin position (the same matches, about three times faster).
CUE_PATTERN = re.compile(
    rf"(?<![{_LATIN}])(?:{prefix_tree(sorted(w for w in CUES if _LATIN_START.match(w)))})|"
    rf"(?=[{re.escape(''.join(sorted({w[0] for w in _OTHER_CUES})))}])"
    rf"(?:{prefix_tree(_OTHER_CUES)})"
)
_ASCII_END = re.compile(rf"[{_LATIN}]")


def cue_at(lower: str, start: int, end: int) -> Cue | None:
    """The cue ``lower[start:end]`` as a whole word (``None`` when it runs into a word or is
    part of an identifier: ``x-request-id``, ``password_hash``)."""
    word = lower[start:end]
    if start > 0 and lower[start - 1] in "-_":
        return None
    cue = CUES.get(word)
    if cue is None:
        return None
    if word[-1].isascii() or "\u00c0" <= word[-1] <= "\u024f":
        if end < len(lower) and (_ASCII_END.match(lower, end) or lower[end] == "_"):
            return None
    return cue
