"""The payout documents as files: a PDF per document (fpdf2), for a credit note a Factur-X PDF/A-3
with its EN 16931 XML (UN/CEFACT CII, type code 389: self-billed invoice) embedded and checked
against the Factur-X XSD (factur-x validates on generation). A ZIP per batch.

The font is DejaVu Sans (Debian's fonts-dejavu-core, in the Makefile's packages), cut once per
process to the Latin-1 and Windows-1252 glyphs a German document uses and embedded into each
PDF (PDF/A wants its fonts embedded); cutting it once keeps a document at about 30 ms instead
of 160 ms."""

from __future__ import annotations

import datetime
import logging
import tempfile
import threading
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import IO

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from fpdf import FPDF
from lxml import etree

from operations.credit_notes import service_text, vat_note
from operations.document_models import DocumentKind, PayoutDocument, VatMode
from operations.formats import de_date, de_euro, de_number, de_percent

logger = logging.getLogger(__name__)
# fpdf2 cuts the embedded font per document with fontTools, whose INFO lines (every glyph name)
# would flood the log and cost more time than the PDF itself.
logging.getLogger("fontTools").setLevel(logging.WARNING)
logging.getLogger("factur-x").setLevel(logging.WARNING)

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}
GLYPHS = (
    "".join(chr(c) for c in range(0x20, 0x7F)) + "".join(chr(c) for c in range(0xA0, 0x100)) + "€–—„“”‚‘’•…§™"
)
_fonts: dict[str, str] | None = None
_fonts_lock = threading.Lock()


def _cut_fonts() -> dict[str, str]:
    """{style: path} of the cut fonts, made once per process (empty without DejaVu: then the
    PDF's standard Helvetica in Windows-1252)."""
    global _fonts
    with _fonts_lock:
        if _fonts is not None:
            return _fonts
        from fontTools import subset
        from fontTools.ttLib import TTFont

        found: dict[str, str] = {}
        if all((FONT_DIR / name).exists() for name in FONT_FILES.values()):
            folder = Path(tempfile.mkdtemp(prefix="thg-fonts-"))
            options = subset.Options()
            options.layout_features = []
            options.notdef_outline = True
            options.drop_tables += ["FFTM"]  # FontForge's timestamps: nothing to cut, a warning each time
            for style, name in FONT_FILES.items():
                font = TTFont(FONT_DIR / name)
                cutter = subset.Subsetter(options)
                cutter.populate(text=GLYPHS)
                cutter.subset(font)
                path = folder / name
                font.save(str(path))
                found[style] = str(path)
        else:
            logger.warning("DejaVu fonts missing: documents use Helvetica, not embedded")
        _fonts = found
        return found


class _Pdf(FPDF):
    def __init__(self, orientation: str = "portrait") -> None:
        super().__init__(orientation=orientation, format="A4")
        fonts = _cut_fonts()
        if fonts:
            for style, path in fonts.items():
                self.add_font("Doc", style, path)
            self.family = "Doc"
        else:
            self.core_fonts_encoding = "windows-1252"
            self.family = "Helvetica"
        self.set_auto_page_break(auto=True, margin=20)
        self.set_margins(20, 20, 20)
        self.add_page()

    def text_line(self, text: str, size: float = 10, bold: bool = False, height: float = 5) -> None:
        self.set_font(self.family, "B" if bold else "", size)
        # A line that fits is a cell: fpdf2's line breaking costs more than the rest of the page.
        if self.get_string_width(text) <= self.epw - 2 * self.c_margin:
            self.cell(0, height, text, new_x="LMARGIN", new_y="NEXT")
        else:
            self.multi_cell(0, height, text, align="L", new_x="LMARGIN", new_y="NEXT")

    def row(self, label: str, value: str, bold: bool = False) -> None:
        self.set_font(self.family, "B" if bold else "", 10)
        self.cell(120, 6, label)
        self.cell(0, 6, value, align="R", new_x="LMARGIN", new_y="NEXT")


def _address(party: dict[str, str]) -> list[str]:
    lines = [party.get("name", "")]
    if party.get("person"):
        lines.append(party["person"])
    lines += [party.get("street", ""), f"{party.get('postal_code', '')} {party.get('city', '')}".strip()]
    return [line for line in lines if line]


def _tax_ids(party: dict[str, str]) -> list[str]:
    found = []
    if party.get("vat_id"):
        found.append(f"USt-IdNr.: {party['vat_id']}")
    if party.get("tax_number"):
        found.append(f"Steuernummer: {party['tax_number']}")
    return found


def document_lines(document: PayoutDocument) -> dict[str, list[str]]:
    """What the PDF prints, by block (the tests read the PDF's text against it)."""
    owner = document.owner_fields
    partner = document.partner_data
    credit = document.kind == DocumentKind.CREDIT_NOTE
    title = "Gutschrift" if credit else "Auszahlungsbeleg"
    head = [
        f"{title} Nr. {document.number}",
        f"Ausstellungsdatum: {de_date(document.issue_date)}",
        f"Leistungsdatum: {de_date(document.service_date)}",
    ]
    if credit:
        supplier = ["Leistender (Gutschriftsempfänger):", *_address(owner), *_tax_ids(owner)]
        recipient = [
            "Leistungsempfänger (Aussteller der Gutschrift):",
            *_address(partner),
            *_tax_ids(partner),
        ]
    else:
        supplier = ["Zahlungsempfänger:", *_address(owner)]
        recipient = ["Auszahlender:", *_address(partner)]
    amounts = [f"Nettobetrag: {de_euro(document.net)}"]
    if document.vat_mode == VatMode.STANDARD:
        amounts += [
            f"Umsatzsteuer {de_percent(document.vat_percent)}: {de_euro(document.vat)}",
            f"Gesamtbetrag: {de_euro(document.gross)}",
        ]
    else:
        amounts += [f"Auszahlungsbetrag: {de_euro(document.gross)}"]
    notes = [note for note in (vat_note(document), document.self_billing_clause) if note]
    if document.end_to_end_id:
        notes.append(f"Referenz der Überweisung: {document.end_to_end_id}")
    return {
        "head": head,
        "supplier": supplier,
        "recipient": recipient,
        "service": [service_text(document)],
        "amounts": amounts,
        "notes": notes,
    }


def document_pdf(document: PayoutDocument) -> bytes:
    """The document as a plain PDF (a credit note's is then made a Factur-X PDF)."""
    lines = document_lines(document)
    pdf = _Pdf()
    pdf.set_title(lines["head"][0])
    pdf.set_author(document.partner_data.get("name", ""))
    pdf.set_creation_date(
        datetime.datetime.combine(document.issue_date, datetime.time(12), tzinfo=datetime.UTC)
    )
    for line in lines["recipient"][1:]:
        pdf.text_line(line, size=8, height=4)
    pdf.ln(8)
    for line in lines["supplier"][1:]:
        pdf.text_line(line)
    pdf.ln(8)
    pdf.text_line(lines["head"][0], size=16, bold=True, height=9)
    for line in lines["head"][1:]:
        pdf.text_line(line)
    pdf.ln(4)
    for block in ("supplier", "recipient"):
        pdf.text_line(lines[block][0], bold=True)
        pdf.text_line(", ".join(lines[block][1:]))
        pdf.ln(2)
    pdf.ln(2)
    pdf.text_line("Leistung", bold=True)
    pdf.text_line(lines["service"][0])
    pdf.ln(4)
    for line in lines["amounts"]:
        label, value = line.rsplit(": ", 1)
        pdf.row(label, value, bold=line.startswith(("Gesamtbetrag", "Auszahlungsbetrag")))
    pdf.ln(4)
    for line in lines["notes"]:
        pdf.text_line(line, size=9, height=4.5)
        pdf.ln(1)
    return bytes(pdf.output())


# ---------------------------------------------------------------- EN 16931 (CII)

NS = {
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
    "qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
}
EN16931 = "urn:cen.eu:en16931:2017"
SELF_BILLED = "389"
# VAT category (UNTDID 5305) and, where no VAT is shown, the exemption reason and its code.
CATEGORY = {
    VatMode.STANDARD: ("S", None, None),
    VatMode.REVERSE_CHARGE: ("AE", "Steuerschuldnerschaft des Leistungsempfängers", "VATEX-EU-AE"),
    VatMode.SMALL_BUSINESS: ("E", "Kein Ausweis der Umsatzsteuer, da Kleinunternehmer gemäß § 19 UStG", None),
}


def _el(parent: etree._Element, tag: str, text: str | None = None, **attributes: str) -> etree._Element:
    prefix, name = tag.split(":")
    element = etree.SubElement(parent, f"{{{NS[prefix]}}}{name}", **attributes)
    if text is not None:
        element.text = text
    return element


def _amount(value: Decimal) -> str:
    return f"{value:.2f}"


def _date(parent: etree._Element, tag: str, day: datetime.date) -> None:
    _el(_el(parent, tag), "udt:DateTimeString", day.strftime("%Y%m%d"), format="102")


def _party(parent: etree._Element, tag: str, party: dict[str, str]) -> None:
    element = _el(parent, tag)
    _el(element, "ram:Name", party.get("name") or "-")
    address = _el(element, "ram:PostalTradeAddress")
    if party.get("postal_code"):
        _el(address, "ram:PostcodeCode", party["postal_code"])
    if party.get("street"):
        _el(address, "ram:LineOne", party["street"])
    if party.get("city"):
        _el(address, "ram:CityName", party["city"])
    _el(address, "ram:CountryID", party.get("country") or "DE")
    if party.get("vat_id"):
        _el(_el(element, "ram:SpecifiedTaxRegistration"), "ram:ID", party["vat_id"], schemeID="VA")
    if party.get("tax_number"):
        _el(_el(element, "ram:SpecifiedTaxRegistration"), "ram:ID", party["tax_number"], schemeID="FC")


def _tax(parent: etree._Element, document: PayoutDocument, *, header: bool) -> None:
    category, reason, reason_code = CATEGORY[VatMode(document.vat_mode)]
    tax = _el(parent, "ram:ApplicableTradeTax")
    if header:
        _el(tax, "ram:CalculatedAmount", _amount(document.vat))
    _el(tax, "ram:TypeCode", "VAT")
    if header and reason:
        _el(tax, "ram:ExemptionReason", reason)
    if header:
        _el(tax, "ram:BasisAmount", _amount(document.net))
    _el(tax, "ram:CategoryCode", category)
    if header and reason_code:
        _el(tax, "ram:ExemptionReasonCode", reason_code)
    _el(tax, "ram:RateApplicablePercent", _amount(document.vat_percent))


def document_xml(document: PayoutDocument) -> bytes:
    """The credit note as an EN 16931 invoice in CII: the owner is the seller (the supplier of
    the quota), the partner the buyer who issued it (type code 389, self-billed)."""
    if document.kind != DocumentKind.CREDIT_NOTE:
        raise ValueError("only a credit note is an e-invoice")
    root = etree.Element(f"{{{NS['rsm']}}}CrossIndustryInvoice", nsmap=NS)
    context = _el(root, "rsm:ExchangedDocumentContext")
    _el(_el(context, "ram:GuidelineSpecifiedDocumentContextParameter"), "ram:ID", EN16931)
    head = _el(root, "rsm:ExchangedDocument")
    _el(head, "ram:ID", document.number)
    _el(head, "ram:TypeCode", SELF_BILLED)
    _date(head, "ram:IssueDateTime", document.issue_date)
    for note in ("Gutschrift", vat_note(document), document.self_billing_clause):
        if note:
            _el(_el(head, "ram:IncludedNote"), "ram:Content", note)
    trade = _el(root, "rsm:SupplyChainTradeTransaction")
    line = _el(trade, "ram:IncludedSupplyChainTradeLineItem")
    _el(_el(line, "ram:AssociatedDocumentLineDocument"), "ram:LineID", "1")
    product = _el(line, "ram:SpecifiedTradeProduct")
    _el(product, "ram:Name", f"THG-Quote {document.legislation_year}")
    _el(product, "ram:Description", service_text(document))
    _el(
        _el(_el(line, "ram:SpecifiedLineTradeAgreement"), "ram:NetPriceProductTradePrice"),
        "ram:ChargeAmount",
        _amount(document.net),
    )
    _el(_el(line, "ram:SpecifiedLineTradeDelivery"), "ram:BilledQuantity", "1", unitCode="C62")
    line_settlement = _el(line, "ram:SpecifiedLineTradeSettlement")
    _tax(line_settlement, document, header=False)
    _el(
        _el(line_settlement, "ram:SpecifiedTradeSettlementLineMonetarySummation"),
        "ram:LineTotalAmount",
        _amount(document.net),
    )
    agreement = _el(trade, "ram:ApplicableHeaderTradeAgreement")
    _party(agreement, "ram:SellerTradeParty", document.owner_fields)
    _party(agreement, "ram:BuyerTradeParty", document.partner_data)
    delivery = _el(trade, "ram:ApplicableHeaderTradeDelivery")
    _date(
        _el(delivery, "ram:ActualDeliverySupplyChainEvent"), "ram:OccurrenceDateTime", document.service_date
    )
    settlement = _el(trade, "ram:ApplicableHeaderTradeSettlement")
    if document.end_to_end_id:
        _el(settlement, "ram:PaymentReference", document.end_to_end_id)
    _el(settlement, "ram:InvoiceCurrencyCode", "EUR")
    _tax(settlement, document, header=True)
    totals = _el(settlement, "ram:SpecifiedTradeSettlementHeaderMonetarySummation")
    _el(totals, "ram:LineTotalAmount", _amount(document.net))
    _el(totals, "ram:TaxBasisTotalAmount", _amount(document.net))
    _el(totals, "ram:TaxTotalAmount", _amount(document.vat), currencyID="EUR")
    _el(totals, "ram:GrandTotalAmount", _amount(document.gross))
    _el(totals, "ram:DuePayableAmount", _amount(document.gross))
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def document_file(document: PayoutDocument) -> bytes:
    """The document's PDF: for a credit note the Factur-X PDF (the XML checked against the
    EN 16931 profile's XSD as it is embedded)."""
    pdf = document_pdf(document)
    if document.kind != DocumentKind.CREDIT_NOTE:
        return pdf
    from facturx import generate_from_binary

    return bytes(
        generate_from_binary(
            pdf,
            document_xml(document),
            flavor="factur-x",
            level="en16931",
            check_xsd=True,
            pdf_metadata={
                "author": document.partner_data.get("name", ""),
                "keywords": "Factur-X, Gutschrift",
                "title": f"Gutschrift {document.number}",
                "subject": f"Gutschrift {document.number}",
            },
            lang="de-DE",
        )
    )


def _path(document: PayoutDocument) -> str:
    return f"{connection.schema_name}/payout_documents/{document.number}.pdf"  # type: ignore[attr-defined]


def document_stored(document: PayoutDocument) -> bytes:
    """The kept file, made and kept on first use (documents do not change once issued)."""
    if document.pdf_path and default_storage.exists(document.pdf_path):
        with default_storage.open(document.pdf_path, "rb") as handle:
            return bytes(handle.read())
    data = document_file(document)
    document.pdf_path = default_storage.save(_path(document), ContentFile(data))
    PayoutDocument.objects.filter(pk=document.pk).update(pdf_path=document.pdf_path)
    return data


def payout_documents_render(*, batch_id: int) -> int:
    """Every document of the batch not yet made, made and kept; returns how many."""
    made = 0
    for document in PayoutDocument.objects.filter(item__batch_id=batch_id, pdf_path="").order_by("pk"):
        document_stored(document)
        made += 1
    return made


def file_name(document: PayoutDocument, extension: str = "pdf") -> str:
    return f"{document.number}.{extension}"


def documents_zip(documents: list[PayoutDocument], target: IO[bytes]) -> int:
    """Every document's PDF (and a credit note's XML beside it) into one ZIP; returns the count."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for document in documents:
            archive.writestr(file_name(document), document_stored(document))
            if document.kind == DocumentKind.CREDIT_NOTE:
                archive.writestr(file_name(document, "xml"), document_xml(document))
    return len(documents)


def statement_pdf(title: str, subtitle: list[str], header: list[str], rows: list[list[str]]) -> bytes:
    """A table statement (reports) on landscape pages: title, a few lines, then the rows, the
    columns as wide as their widest text (shrunk in proportion where the page is too narrow),
    numbers right-aligned."""
    pdf = _Pdf(orientation="landscape")
    pdf.set_title(title)
    pdf.text_line(title, size=14, bold=True, height=8)
    for line in subtitle:
        pdf.text_line(line, size=9, height=4.5)
    pdf.ln(4)
    size = 7.5
    pdf.set_font(pdf.family, "B", size)
    widths = [pdf.get_string_width(text) + 2 for text in header]
    pdf.set_font(pdf.family, "", size)
    for row in rows:
        widths = [max(width, pdf.get_string_width(text) + 2) for width, text in zip(widths, row, strict=True)]
    usable = pdf.w - pdf.l_margin - pdf.r_margin
    if sum(widths) > usable:
        widths = [width * usable / sum(widths) for width in widths]

    def head() -> None:
        pdf.set_font(pdf.family, "B", size)
        for text, width in zip(header, widths, strict=True):
            pdf.cell(width, 5, _fit(pdf, text, width), border="B")
        pdf.ln()
        pdf.set_font(pdf.family, "", size)

    head()
    for row in rows:
        if pdf.will_page_break(4.5):
            pdf.add_page()
            head()
        for text, width in zip(row, widths, strict=True):
            pdf.cell(width, 4.5, _fit(pdf, text, width), align="R" if _numeric(text) else "L")
        pdf.ln()
    return bytes(pdf.output())


def _numeric(text: str) -> bool:
    return bool(text) and text.replace(".", "").replace(",", "").replace(" %", "").replace("-", "").isdigit()


def _fit(pdf: FPDF, text: str, width: float) -> str:
    while text and pdf.get_string_width(text) > width - 1:
        text = text[:-1]
    return text


def de_kwh(value: int | None) -> str:
    return de_number(Decimal(value) / 1000, 3) if value else ""
