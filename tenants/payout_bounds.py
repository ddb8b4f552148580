"""The payout bounds moved to common.payout_bounds (issue 50: the configuration schema, a leaf
module, reads them); these names stay importable from here until the operations' imports name
common.payout_bounds."""

from common.payout_bounds import german_euros, payout_in_bounds, payout_max, payout_max_any

__all__ = ["german_euros", "payout_in_bounds", "payout_max", "payout_max_any"]
