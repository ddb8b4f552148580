"""Error codes of the billing calls (spec/registration-flow.md section 8)."""

IBAN_INVALID = "IBAN001"  # not an IBAN: length, country or check digits wrong
IBAN_NOT_SEPA = "IBAN002"  # a valid IBAN of a country outside the SEPA zone: no payout possible
VAT_INVALID = "VAT001"  # VAT id or tax number fails its check (checksum or remote register)
CLIENT_LOCKED = "CLIENT001"  # the client was submitted and locked already
NO_REGISTRATION = "CLIENT002"  # locking a client without a completed registration

REQUIRED = "Eingabe erforderlich."
CHOOSE = "Auswahl treffen."
STREET_INVALID = "Straße name ungultig"
HOLDER_INVALID = "Name von kontoinhaber ungultig"
HOLDER_CHARACTERS = "Bitte geben Sie Ihren Namen ohne Sonderzeichen und ohne Umlaute ein."
NO_EMOJIS = "Bitte keine Emojis verwenden"
TAX_NUMBER_FORMAT = "Bitte überprüfen Sie das Format: Ust.-ID (DE…) mit 9 Ziffern, oder ihre Steuernummer."
NOT_OFFERED = "Diese Auswahl wird nicht angeboten."
