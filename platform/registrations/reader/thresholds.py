"""Every number the reader decides by, in one table, each with its reason.

A rule or threshold stays here only if it helps a family of documents the reader was not tuned
on (the held-out family of the bench, tests/bench/test_reader_real.py); none is fitted to a
single document.
"""

from __future__ import annotations

# -- find (find.py) ----------------------------------------------------------------------
# The ruling of the two data panels matched against the form's drawing (0..1, normalised
# correlation of line maps). The real form on pale paper scores 0.45-0.6, phone photos 0.3-0.5;
# a page without ruled panels (invoice, COC, web page) below 0.2.
GRID_SURE = 0.4  # the ruling alone says ZB I (with no veto)
# the ruling agrees: a ZB I unless a veto says otherwise (its fields may all go to review); the
# wrong documents of the bench (Teil II, COC, the form's back, cards) stay below 0.21, poor
# photos of the form reach 0.27-0.36 (web pages showing the form reach 0.6: vetoed by their text)
GRID_WEAK = 0.25
GRID_NONE = 0.12  # below: no ruled panel here at all, nothing to locate

# The form's rows repeat every 4.09 mm: a phone photo's registration can land a whole row off
# (dev documents of the tuned families, seeds 70000+: 4 of 24 phone photos read D.1's value
# as the VIN, another row's as B and 10). Where none of E, B, 10 is read, the page is tried a row
# up and down, and read there where at least ROW_SHIFT_FITS of them show their value's form on
# one read each, more than where the registration put the form.
ROW_SHIFTS = (1, -1)
ROW_SHIFT_FITS = 2
# The free texts (D.3, C1.1, C1.2) are stored only on a page where one of these fields (a
# value of fixed form: a VIN, a date, a code, a class) was read where the drawing puts it. On
# the bench's 220 ZB I, of the free texts stored on pages where none of them was, 6 of 9 were
# another row's value ("VOLKSWAGEN AG" as the holder's name, "Gartenweg" as the first names,
# "LIMOUSINE" as D.3): the registration was off, and nothing but the reads checked them.
ANCHORS = frozenset({"E", "B", "10", "J"})
# A page registered sideways off: the middle panel's left edge and label border (down its first
# SIDEWAYS_ROWS rows) looked for SIDEWAYS_REACH_MM either way; the page is moved where they lie
# at least SIDEWAYS_MIN_MM off and SIDEWAYS_CLEARER times as clearly as where it was put.
SIDEWAYS_ROWS = 14
SIDEWAYS_REACH_MM = 6.0
SIDEWAYS_MIN_MM = 0.5
SIDEWAYS_CLEARER = 1.5
# A value the photo's frame cut: the printer's ink on its line runs into the picture's edge
# (within EDGE_MM of it), up to EDGE_REACH_MM beyond its first or last character (a character
# cut to a sliver is dropped as a small mark, and the value seems to start at the next one)
EDGE_MM = 0.3
EDGE_REACH_MM = 2.0

# -- recognise (recognise.py) ---------------------------------------------------------------
MIN_MARKS = 20  # fewer character-sized marks: a blank, dark or empty photo (IMGC003)
MIN_WORDS_READABLE = 12  # a page with fewer words than this is too little to tell (IMGC003)
HEADER_HITS = 2  # header words ("Zulassungsbescheinigung", "Fahrzeugschein", ...) that count as evidence
LABEL_HITS = 4  # field codes read in the middle panel's label column, in their order
# Printed values too faint or blurred for a person to read: the values' ink against the paper
# (0..1). A photo of the form out of focus measures 0.2-0.3, a readable one 0.45 and up.
LEGIBLE = 0.3
BLURRED = 15.0  # page sharpness (recognise.sharpness) below which no person reads the values either

# -- locate (locate.py) --------------------------------------------------------------------
CHAR_HEIGHT_MM = 2.4  # the printer's capitals (specimen: 2.3-2.5 mm)
SEARCH_ABOVE_MM = 1.2  # a value is looked for this far above its row (printer offset) ...
SEARCH_BELOW_MM = 1.6  # ... and below it: the printer often sits on the row's lower line
INK = 0.3  # a pixel is ink from this share of darkness (after the green pre-print is removed)
# A ruled line's pixel is the line alone unless the ink there runs on across it further than
# the line is thick (its bare length's median run) by more than LINE_THICKER px, or is darker
# than the line's own ink by LINE_DARKER: a character printed on the line (the printer often
# puts its base on the row's lower ruling) keeps its base stroke instead of losing it with the line.
# LINE_DARKER at 0.2 kept stretches of a scanned line whose own darkness varies (an M1 with a
# line's piece after it, J unsure); 0.35 measured J 31 -> 32 and code 10 36 -> 37 of 48 (dev)
LINE_THICKER = 1
LINE_DARKER = 0.35
# The second engine (RapidOCR, trained on photographed text) reads the value's box in the ink
# layer as it is, this far around its characters: not the cut-out marks with a wide white margin
# that suit Tesseract. On a blurred photo the cut at INK loses the strokes' faint edges and joins
# neighbours (a VIN read "WANIU I L A6o" from its marks, "WGXNS031FC468879" from its box), and
# the model's 48 px line then holds the characters at two thirds of its height, not a third.
# Whole bench set: values stored 1825 -> 1905, wrong ones 1 -> 0; J on poor photos 26.9 -> 44.2 %,
# phone photos' E 94.5 -> 96.4 %; held-out J 75.0 -> 81.8 %; dev set (tuned, seeds 90000+): 636
# -> 661 stored, 4 -> 3 wrong. A margin of 0.4 or 0.9 mm measured the same within a value or two
PLAIN_MARGIN_MM = 0.6

# -- read (read.py) ------------------------------------------------------------------------
SCALES = (1.5, 1.0)  # Tesseract reads the printer's condensed font best at 1.5x of 10 px/mm
# field 3, one character: Tesseract reads it from its crop set side by side SINGLE_REPEAT times
# (a lone character it often reads as nothing, or a 7 as a 1), at these scales; then the crop
# alone at the first. Dev (pdf and phone photos, seeds 500-519, 40 documents; the held-out
# family not looked at): field 3 decided right 29 -> 34, wrong 2 -> 1
SINGLE_REPEAT = 3
SINGLE_SCALES = (2.0, 1.5)
OCR_TIMEOUT = 30  # seconds for a page's text (recognise's vetoes); a field takes milliseconds

# -- decide (decide.py) --------------------------------------------------------------------
# A VIN is stored only on one of these grounds (decided_by):
#  "field3":     the read VIN agrees with the printed check digit (field 3): a misread place
#                changes the digit, so agreement by chance is 1 in 11 and the reads must agree too
#  "field3_choice": among the engines' own alternatives at the places they disagree, exactly
#                one VIN agrees with field 3 (never a character no engine read)
#  "agreement":  field 3 unread (an empty box, a glare): at least VIN_AGREEING independent
#                reads give the same plausible VIN and more reads give it than any other
VIN_AGREEING = 2
#  "agreement_aligned": field 3 unread and two VINs read equally often (at least VIN_AGREEING
#                times each): every read, one of another length too, votes by what it read at
#                the places where they differ, and one VIN gets more votes than the other (the
#                public specimen: "6" or "G" at place 4, two reads each; RapidOCR, which dropped a
#                "0" further on, reads "6")
#  "field3_glyphs": the cell recogniser's (glyphs.py) VIN agreeing with field 3, each place of it
#                read the same by another engine's read (aligned, any length) or, at
#                VIN_CHOICE_PLACES places at most, by the cells alone and surely (GLYPH_SURE)
#  "field3_lines": the same for the line network's (lines.py) whole VIN; where it is sure
#                (GLYPH_SURE) of a place the cells are sure of otherwise, the cells' veto
#                (glyphs_disagree, field3_blind) no longer holds: one recogniser of the
#                printers' fonts against the other, and field 3 and the other reads decide.
#                Calibration (poor and phone photos of the tuned families, seeds 120000+, 280
#                documents, decided again from their reads, with the network of its first
#                training): VINs stored 122 without the
#                network's reads, 149 with them and these two rules, none wrong
#  "field3_among": field 3's reads disagree (or one read alone gave it): of the digits they
#                showed, exactly one confirms a VIN by "field3", "field3_glyphs" or "field3_lines"
#                (not by field3_choice: choosing among alternatives for several digits finds one
#                too often), and not by a recogniser's own VIN where only it read that digit
#  "glyphs_disagree" (left unread): a VIN field 3 confirms, but the cell recogniser is sure
#                (GLYPH_SURE) of another character at one of its places
#  "field3_blind" (left unread): the two recognisers, each sure, read at one place two characters
#                field 3 counts alike (1/J, 2/S, 5/V, ...): field 3 cannot say which is printed
#  "field3_partial": field 3 printed but its reads disagree (a single character is Tesseract's
#                weak spot): this many reads agree on the VIN and its check digit is one of the
#                digits field 3's reads showed
VIN_AGREEING_PARTIAL = 3
VIN_CHOICE_PLACES = 3  # field3_choice changes the consensus at this many places at most
CHOICE_OPTIONS = 12  # ... among the likeliest other characters the reads give (by their support)
# the chosen VIN must be this much likelier (log of the support ratio: e^1.4 = 4x) than the next
# that agrees with field 3 too: a second candidate nearly as likely makes the choice a guess
CHOICE_MARGIN = 1.4
# a place every read gives the same character at this confidence or more is settled: field3_choice
# changes only the other places
PLACE_SURE = 0.9
ALTERNATIVE_MIN = 0.05  # an engine's alternative counts from this confidence
RAPID_WEIGHT = 0.9  # RapidOCR gives no per-character confidence: its read counts as a sure one
# a date, code 10, J, 2.1 and the plate need this many independent opinions giving the value
# (Tesseract's two language models, RapidOCR, the cell recogniser; one model at its two scales
# is one opinion): on dev documents of the tuned families (seeds 70000+, 72 pdf, phone and
# poor photos) the English model read a date's 5 as 6 at both scales, B and I stored wrong
CODE_AGREEING = 2
# a free text (D.3, the holder's names) is stored when every character of its read is this sure
# (Tesseract's own confidence); a photo's misread names measured 0.3-0.8 at their worst place
TEXT_SURE = 0.9
# ... and at least this many independent opinions give it alike (Tesseract's German and English
# models, RapidOCR; another scale of one model is the same opinion): one sure read stored a wrong
# model name (D.3) on 16 of 63 accepted documents of the bench subset, the German model at its
# second scale repeated 13 of those misreads. No read may give another value either (a majority
# of two models misread alike: "AMATIC" for 4MATIC, "Enyag", "Ema"): on the bench subset the
# free texts and names stored 14 wrong values in 721 with a majority, 3 in 686 without
TEXT_AGREEING = 2
# ... and no read's 1 has I or l as its second choice at this confidence or more: every engine
# reads the printer's serifed I as 1 beside a digit (BMW's "I3" stored as "13" on 5 of 220 bench
# documents, 4 of them of the tuned families), where Tesseract's English model still offers I at
# 0.38-0.89. Only this pair: a 0 doubted against O or a 5 against S (0.52-0.67) was the digit on
# every bench and dev document ("500E", "IONIQ 5"), and doubting them lost 17 right values
TEXT_DOUBT = 0.35

# -- glyphs (glyphs.py) --------------------------------------------------------------------
# The printers' character pitch (mm): 17 VIN characters in 30 mm on the specimen; a printer's
# font is up to about 6 % wider or narrower, the page's registration adds a little
GLYPH_PITCH_MM = 1.77
GLYPH_PITCH_SPREAD = 0.08
GLYPH_ALTERNATIVE = 0.02  # a cell's other character is offered to decide.py from this probability
# a cell read this sure (the network's probability) counts as sure: dev documents of the tuned
# families (seeds 80000+, pdf and phone) read 1 for a printed J in both Tesseract reads while the
# cells read J at 0.99; validation cells wrong at 0.9 or more: few
GLYPH_SURE = 0.9
