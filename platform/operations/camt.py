"""The bank's word on returned payouts (issue 46): a camt.054 (debit/credit notification: a credit
transfer that came back, with its return reason) or a pain.002 (payment status report: a
transfer rejected, or settled). Each named transfer (by its EndToEndId) moves its items to payment
failure through the settlement's service, with the bank's reason code; a pain.002's settled
status (ACSC, ACCC) for a transfer recorded as failed confirms it paid after all
(settlement.settlement_item_paid_confirm). The move to qa_payment_failure
mails the owner to check the bank details in the portal (quota.owner_mails, on commit); the
corrected IBAN puts the application back to qa_to_pay for a later batch
(settlement.settlement_item_iban_correct, the portal's payout_account call).

Parsed with defusedxml: no DTD, no entities, no network. Any other file is refused whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element  # noqa: S405 (types only; parsing is defusedxml's)

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring
from django.db import transaction

from accounts.models import User
from operations import settlement
from operations.models import SettlementItem
from quota.models import QuotaStatus

MAX_BYTES = 10 * 1024 * 1024
NOT_A_RETURN_FILE = "RETURN001"
NOTHING_MATCHED = "RETURN002"
TOO_LARGE = "RETURN003"
MESSAGES = {
    NOT_A_RETURN_FILE: "Bitte laden Sie eine Rückmeldung der Bank als camt.054 oder pain.002 (XML) hoch.",
    NOTHING_MATCHED: "Die Datei nennt keine Überweisung dieses Partners.",
    TOO_LARGE: "Die Datei ist größer als 10 MB.",
}
# ISO 20022 external return reason codes (the ones German banks send for SEPA returns).
REASONS = {
    "AC01": "IBAN fehlerhaft",
    "AC04": "Konto erloschen",
    "AC06": "Konto gesperrt",
    "AC13": "Konto eines Verbrauchers nicht zulässig",
    "AG01": "Transaktion für dieses Konto nicht erlaubt",
    "AG02": "Ungültiger Zahlungsvorgang",
    "AM05": "Doppelte Zahlung",
    "BE04": "Adresse des Empfängers fehlt",
    "CNOR": "Bank des Empfängers nicht erreichbar",
    "DNOR": "Bank des Zahlers nicht erreichbar",
    "FF01": "Ungültiges Dateiformat",
    "MD07": "Kontoinhaber verstorben",
    "MS02": "Vom Empfänger abgelehnt",
    "MS03": "Grund nicht angegeben",
    "RC01": "BIC fehlerhaft",
    "RR01": "Kontodaten des Zahlers fehlen",
    "RR02": "Name oder Adresse des Zahlers fehlt",
    "RR03": "Name oder Adresse des Empfängers fehlt",
    "RR04": "Aufsichtsrechtliche Gründe",
    "SL01": "Besondere Leistung der Bank",
    "TM01": "Annahmeschluss überschritten",
}


class ReturnFileRefused(Exception):
    def __init__(self, code: str):
        self.code = code
        self.message = MESSAGES[code]
        super().__init__(self.message)


@dataclass(frozen=True)
class Returned:
    end_to_end_id: str
    code: str
    detail: str

    @property
    def reason(self) -> str:
        text = REASONS.get(self.code, self.detail or "ohne Angabe")
        return f"Rückmeldung der Bank {self.code or '–'}: {text}"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _namespace(tag: str) -> str:
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""


def _child(element: Element, *path: str) -> Element | None:
    found: Element | None = element
    for name in path:
        if found is None:
            return None
        found = next((child for child in found if _local(child.tag) == name), None)
    return found


def _text(element: Element, *path: str) -> str:
    found = _child(element, *path)
    return (found.text or "").strip() if found is not None else ""


def _all(element: Element, name: str) -> list[Element]:
    return [found for found in element.iter() if _local(found.tag) == name]


def return_file_parse(data: bytes) -> tuple[str, list[Returned]]:
    """(kind, returned transfers) of a camt.054 or pain.002; anything else is refused."""
    kind, returned, _ = return_file_read(data)
    return kind, returned


def return_file_read(data: bytes) -> tuple[str, list[Returned], list[Returned]]:
    """(kind, returned transfers, transfers the bank reports settled) of a camt.054 or
    pain.002; anything else is refused. Only a pain.002 reports settled transfers."""
    if len(data) > MAX_BYTES:
        raise ReturnFileRefused(TOO_LARGE)
    try:
        root = fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except (ParseError, DefusedXmlException, ValueError):
        raise ReturnFileRefused(NOT_A_RETURN_FILE) from None
    namespace = _namespace(root.tag)
    body = next(iter(root), None) if _local(root.tag) == "Document" else None
    if body is None:
        raise ReturnFileRefused(NOT_A_RETURN_FILE)
    if ":camt.054." in namespace and _local(body.tag) == "BkToCstmrDbtCdtNtfctn":
        return "camt.054", _camt054(body), []
    if ":pain.002." in namespace and _local(body.tag) == "CstmrPmtStsRpt":
        return "pain.002", _pain002(body), _pain002_settled(body)
    raise ReturnFileRefused(NOT_A_RETURN_FILE)


def _camt054(body: Element) -> list[Returned]:
    """Every transaction with return information (RtrInf): the transfer came back."""
    found = []
    for details in _all(body, "TxDtls"):
        info = _child(details, "RtrInf")
        if info is None:
            continue
        end_to_end = _text(details, "Refs", "EndToEndId")
        if not end_to_end or end_to_end == "NOTPROVIDED":
            continue
        code = _text(info, "Rsn", "Cd") or _text(info, "Rsn", "Prtry")
        found.append(Returned(end_to_end, code[:4].upper(), " ".join(_text(info, "AddtlInf").split())[:200]))
    return found


def _pain002(body: Element) -> list[Returned]:
    """Every transaction the bank rejected (TxSts RJCT)."""
    found = []
    for status in _all(body, "TxInfAndSts"):
        if _text(status, "TxSts") != "RJCT":
            continue
        end_to_end = _text(status, "OrgnlEndToEndId")
        if not end_to_end:
            continue
        reason = _child(status, "StsRsnInf")
        code = (_text(reason, "Rsn", "Cd") or _text(reason, "Rsn", "Prtry")) if reason is not None else ""
        detail = _text(reason, "AddtlInf") if reason is not None else ""
        found.append(Returned(end_to_end, code[:4].upper(), detail[:200]))
    return found


# A pain.002's word that the transfer reached the payee's bank: settlement completed (ACSC) or
# settlement on the creditor's account completed (ACCC). Accepted (ACCP) is no more than checked.
SETTLED = ("ACSC", "ACCC")


def _pain002_settled(body: Element) -> list[Returned]:
    """Every transaction the bank reports settled (TxSts ACSC or ACCC)."""
    found = []
    for status in _all(body, "TxInfAndSts"):
        code = _text(status, "TxSts")
        end_to_end = _text(status, "OrgnlEndToEndId")
        if code in SETTLED and end_to_end:
            found.append(Returned(end_to_end, code, ""))
    return found


def _failed_transfer_items(item: SettlementItem) -> list[SettlementItem]:
    """The failed items of the transfer the item's EndToEndId names whose application still
    waits in payment failure: what a settled status confirms as paid after all."""
    if item.owner_id is None:
        return []
    members = SettlementItem.objects.filter(
        batch_id=item.batch_id,
        owner_id=item.owner_id,
        method=SettlementItem.Method.SEPA,
        status=SettlementItem.Status.FAILED,
        application__status=QuotaStatus.PAYMENT_FAILURE,
    ).order_by("pk")
    return [m for m in members if m.iban == item.iban and m.payee_name == item.payee_name]


def _transfer_items(item: SettlementItem) -> list[SettlementItem]:
    """The items one transfer paid: the SEPA file pays an owner's items to one account in one
    transfer that carries the first one's EndToEndId (settlement.sepa_transfers); a return of
    it returns them all."""
    siblings = (
        SettlementItem.objects.filter(
            batch_id=item.batch_id, owner_id=item.owner_id, method=SettlementItem.Method.SEPA
        )
        .exclude(status=SettlementItem.Status.FAILED)
        .order_by("pk")
    )
    if item.owner_id is None:
        return [item] if item.status != SettlementItem.Status.FAILED else []
    return [s for s in siblings if s.iban == item.iban and s.payee_name == item.payee_name]


def return_file_apply(*, data: bytes, actor: User) -> dict[str, Any]:
    """Every returned transfer the file names fails its items (settlement_item_fail). Returns
    what was done: failed items, already failed ones, ids not found."""
    kind, returned, settled = return_file_read(data)
    by_id = {
        item.end_to_end_id: item
        for item in SettlementItem.objects.filter(
            end_to_end_id__in=[r.end_to_end_id for r in (*returned, *settled)]
        )
    }
    failed: list[dict[str, Any]] = []
    paid: list[dict[str, Any]] = []
    already: list[str] = []
    unknown: list[str] = []
    with transaction.atomic():
        # A transfer recorded as failed that the bank reports settled was paid after all
        # (settlement_item_paid_confirm: qa_payment_failure -> qa_paid); a settled transfer
        # that never failed needs nothing.
        for entry in settled:
            item = by_id.get(entry.end_to_end_id)
            if item is None:
                unknown.append(entry.end_to_end_id)
                continue
            for member in _failed_transfer_items(item):
                settlement.settlement_item_paid_confirm(
                    item=member, actor=actor, note=f"Rückmeldung der Bank {entry.code}"
                )
                paid.append(
                    {
                        "item": member.pk,
                        "batch": member.batch_id,
                        "application": member.application_id,
                        "end_to_end_id": entry.end_to_end_id,
                        "code": entry.code,
                    }
                )
        for entry in returned:
            item = by_id.get(entry.end_to_end_id)
            if item is None:
                unknown.append(entry.end_to_end_id)
                continue
            members = _transfer_items(item)
            if not members:
                already.append(entry.end_to_end_id)
                continue
            for member in members:
                settlement.settlement_item_fail(item=member, reason=entry.reason, actor=actor)
                failed.append(
                    {
                        "item": member.pk,
                        "batch": member.batch_id,
                        "application": member.application_id,
                        "end_to_end_id": entry.end_to_end_id,
                        "code": entry.code,
                        "reason": entry.reason,
                    }
                )
    if returned and not failed and not already and not paid:
        raise ReturnFileRefused(NOTHING_MATCHED)
    return {
        "kind": kind,
        "returned": len(returned),
        "failed": failed,
        "paid": paid,
        "already_failed": already,
        "unknown": unknown,
    }
