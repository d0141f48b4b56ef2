"""Numbers that are public by their shape or their label: phone numbers, dates, times,
amounts, and numbers labelled as an order, a parcel, an invoice, a ticket, a product code.

Guarantees: :func:`phone_spans` lists digit runs shaped like a phone number (a leading
``+`` or ``(``, 10+ digits from a trunk ``0`` in groups of two to four digits or one
subscriber group of five to eight, or the North American ``3-3-4`` layout) and runs of 7+
digits after a phone word (``phone``, ``call``, ``tel``, ``Handy``, ``電話`` ...);
:func:`public_label_before` says whether a clause gives a public label (in about twenty
languages) within ``LABEL_WINDOW`` characters before a number, or a number label (``port``,
``unit``, ``ending``) stands right before it; :func:`says_public` whether a message says
its number is public. Linear: bounded windows, cached per window.
"""

from __future__ import annotations

import re
from functools import lru_cache

from adk_memory_kit.sensitive.base import prefix_tree
from adk_memory_kit.sensitive.vocab import Vocabulary

LABEL_WINDOW = 40
#: Word starts that label a number as public: orders, parcels, invoices and receipts,
#: tickets and bookings, references, product and device codes, companies, lotteries, colours.
_LABELS = (
    r"order|ordre|ordine|orden|pedido|commande|bestell|auftrag|tilaus|zamówien|rendelés|"
    r"sipariş|заказ|objedn|narudžb|comanda|"
    r"track|rastreio|rastreamento|seguimiento|guía|guia|suivi|sendung|spedizion|takip|"
    r"pakke|paczk|przesył|colis|parcel|package|paket|pakket|shipment|consignment|waybill|"
    r"envío|envio|kargo|usps|fedex|postnl|correos|colissimo|"
    r"invoice|factur|faktur|rechnung|fattura|fatura|számla|lasku|receipt|recibo|reçu|"
    r"quittung|ricevuta|kvitt|"
    r"ticket|billet|biglietto|boleto|bilet|booking|reserv|buchung|prenota|confirmation|"
    r"bestätigung|pnr|flight|vuelo|flug|room|zimmer|chambre|habitación|"
    r"referen|réf|expediente|dossier|aktenzeichen|protocol|transaction|"
    r"session|isbn|issn|imei|gtin|barcode|serial|model|artikel|article|"
    r"articolo|artículo|product|produit|prodotto|producto|produkt|frame|batch|"
    r"nlis|ear tag|compan|firm|empresa|société|entreprise|unternehmen|azienda|bedrijf|"
    r"företag|yritys|şirket|siret|siren|kvk|merchant|chamado|pesanan|đơn hàng|don hang|"
    r"посылк|трек|отправлени|παραγγελ|αποστολ|"
    r"supplier|vendor|impressum|lieferant|proveedor|fournisseur|fornecedor|fornitore|"
    r"beszállító|dodavatel|loyalty|frequent|member|lotto|lotter|loter|population|"
    r"coordinates|total|amount|price|balance|customer n|customer id|kunden|asiakas|"
    r"client n|numéro client|número de cliente|numero cliente|meeting|zoom|webex|epoch|"
    r"timestamp|unix|created_at|updated_at|created at|updated at|modified|barras|contrat|"
    r"contract|vertrag|purchase|serie|série|postal|postcode|"
    r"raccomandata|salle|classroom|"
    # colours and paints ("gate colour 4471", "RAL 7016")
    r"colour|color|farb|couleur|colore|kleur|färg|farve|väri|kolor|paint|pantone"
)
#: Labels in scripts written without spaces (anywhere in the window).
_LABELS_CJK = (
    r"郵便|邮编|우편|注文|주문|订单|訂單|快递|單號|单号|追跡|予約|請求|发票|พัสดุ|"
    r"הזמנה|הזמנ|משלוח|الطلب|الشحن|τιμολόγ|εταιρ|送り状|伝票|송장|운송장|คำสั่งซื้อ|ऑर्डर|अर्डर"
)
#: Short labels that must be whole words ("ref", not "refuge") anywhere in the clause.
_WORDS = r"ref|resi|vin|vat|abn|acn|uen|pnr|awb|ean|upc|txn|sku|zip|plz|cep|ups|dhl|dpd|gls|ral"
_LABEL = re.compile(
    rf"(?<![^\W\d_])(?:{prefix_tree(_LABELS.split('|'))}|(?:{prefix_tree(_WORDS.split('|'))})"
    rf"(?![^\W\d_]))|{prefix_tree(_LABELS_CJK.split('|'))}",
    re.IGNORECASE,
)
#: Labels that count only right before the number ("port 5432", "unit 4", "ending 4821").
#: ("PO" in capitals only: a purchase order; "po" is Tagalog politeness: "GCash ko po ...")
_ADJACENT = re.compile(
    r"(?<![^\W\d_])(?:case|file|part|lot|tag|sn|(?-i:PO|P\.O\.)|port|ext|extension|page|step|row|chapter|"
    r"section|version|build|release|issue|platform|bus|route|item|table|figure|episode|"
    r"season|level|floor|suite|apt|unit|ending|ends in|ends with|register|registration|sala|"
    r"aula|raum)(?:'s)?\.?[ \t]*(?:(?:no|nr|number|num)\.?[ \t]*)?(?:is[ \t]+)?[#:]?[ \t]*#?$",
    re.IGNORECASE,
)
#: A clause ends at a full stop (not an abbreviation: "ref no. 1234"), a question or
#: exclamation mark, a semicolon or a line break.
_CLAUSE_END = re.compile(r"(?i:(?<!\bno)(?<!\bnr)(?<!\bref)(?<!\btel))[.!?;](?:\s|$)|\n")
_PHONE_WORD = re.compile(
    r"(?<![^\W\d_])(?:phone|call|tel|mobile|cell|fax|hotline|landline|whatsapp|handy|"
    r"teléfono|telefone|téléphone|telefono|telefon|ring|sms|text me|línea|linea|ligne|"
    r"móvil|movil|celular|cellulare|cellulaire|portable|mobil|mobiel|gsm|komórk|"
    r"matkapuhelin|puhelin|cep|τηλέφων|κινητό|телефон|мобильн|טלפון|هاتف|फोन|เบอร์)"
    r"|電話|电话|手机|手機|携帯|전화|휴대폰|핸드폰",
    re.IGNORECASE,
)
_RUN = re.compile(r"\d(?<![\w.,/-]\d)(?:[ \u00a0./-]?\d)*")
_NO_SEPARATORS = str.maketrans("", "", " \u00a0./-")  # a _RUN match less these: its digits
_NANP = re.compile(r"(?:1[ .-])?\d{3}[ .-]\d{3}[ .-]\d{4}")


def _groups(run: str) -> list[str]:
    return re.split(r"[ \u00a0./-]", run)


def phone_shaped(text: str, start: int, end: int) -> bool:
    """Whether the digit run ``text[start:end]`` is shaped like a phone number."""
    run = text[start:end]
    before = text[max(0, start - 2) : start]
    if before.endswith(("+", "+ ", "(")):
        return True
    if _NANP.fullmatch(run):
        return True
    groups = _groups(run)
    digits = sum(map(len, groups))
    if len(groups) >= 2 and run[0] == "0" and run[1] != "0" and digits >= 10:
        if len(groups) == 2:  # "030 9276974", "0171-4829337": an area code, a subscriber
            return 3 <= len(groups[0]) <= 5 and 5 <= len(groups[1]) <= 8
        return len(groups[0]) <= 5 and all(2 <= len(g) <= 4 for g in groups[1:])
    if text[max(0, start - 6) : start].rstrip().endswith(")"):
        return True  # "(555) 196-1239": the area code before
    return False


PHONE_WINDOW = 24


#: A message that says its number is public ("das ist öffentlich", "not a secret").
_SAYS_PUBLIC = Vocabulary(
    "not secret|not a secret|no secret|is public|it's public|that's public|publicly|"
    "bukan rahasia|nicht geheim|ist öffentlich|ist eh öffentlich|pas secret|est public|"
    "es público|é público|è pubblico|não é secreto|ikke hemmelig|er offentlig|"
    "on julkinen|julkinen tieto|ei ole salainen|jest jawny"
)


#: An airline's two-character code and a space right before a number ("CU 0131", "ET 3851"):
#: the number is a flight's (the words a code could also be are left out).
_AIRLINE_BEFORE = re.compile(r"(?<![A-Za-z0-9])(?!ID|NO|PW|OK)[A-Z][A-Z0-9] $")


def flight_digits(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, two to four digits, follows an airline's code and a
    space, as a flight number is written."""
    return (
        2 <= end - start <= 4
        and text[start:end].isdigit()
        and _AIRLINE_BEFORE.search(text, max(0, start - 3), start) is not None
    )


@lru_cache(maxsize=8)
def says_public(text: str) -> bool:
    """Whether the message says that what it gives is public or not secret."""
    return _SAYS_PUBLIC.found_in(text)


def phone_word_before(text: str, start: int) -> bool:
    """Whether the clause before ``start`` (``PHONE_WINDOW`` characters) names a phone."""
    return _phone_word_in(text[max(0, start - LABEL_WINDOW) : start])


@lru_cache(maxsize=4096)
def _phone_word_in(before: str) -> bool:
    return _PHONE_WORD.search(_clause_before(before, len(before))[-PHONE_WINDOW:]) is not None


@lru_cache(maxsize=4)
def phone_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Digit runs shaped like phone numbers, or of 7+ digits after a phone word in their
    clause (``PHONE_WINDOW`` characters), left to right (kept for the text's other readers)."""
    spans: list[tuple[int, int]] = []
    for m in _RUN.finditer(text):
        digits = len(m.group(0).translate(_NO_SEPARATORS))
        if digits < 7 or digits > 15:
            continue
        a, b = m.span()
        if phone_shaped(text, a, b) or phone_word_before(text, a):
            spans.append((a, b))
    return tuple(spans)


def _clause_before(text: str, start: int) -> str:
    window = text[max(0, start - LABEL_WINDOW) : start]
    cut = 0
    for end in _CLAUSE_END.finditer(window):
        cut = end.end()
    return window[cut:]


def public_label_before(text: str, start: int, window: int = LABEL_WINDOW) -> bool:
    """Whether the clause before ``start`` (``window`` characters) labels the number there
    as public, or a number label stands right before it."""
    return _label_in(text[max(0, start - LABEL_WINDOW) : start], window)


@lru_cache(maxsize=4096)
def _label_in(before: str, window: int) -> bool:
    """:func:`public_label_before` on the text before the number (a flood that repeats one
    context is read once)."""
    if _ADJACENT.search(before, max(0, len(before) - 32)) is not None:
        return True
    return _LABEL.search(_clause_before(before, len(before))[-window:]) is not None
