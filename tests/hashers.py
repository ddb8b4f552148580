"""A quick password hash for the test process only (Django's advice for test suites).

Django's PBKDF2 runs 1,000,000 rounds: about 0.4 s of CPU per hash on the CI machine, paid for
every account a test makes and every password login it does (a partner staff session is a hash
to make and one to check). Hashes made here keep the algorithm's name, pbkdf2_sha256, and carry
their round count, so any process checks them as it checks a production hash: a server a test
starts (gunicorn with the production settings) accepts them and, as Django does with an old
hash, makes it stronger at the next login. Production's hashers are not touched.
"""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1_000
