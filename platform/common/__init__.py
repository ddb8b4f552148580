"""The kernel: what every app may use and what uses no app (DESIGN.md, Layout; the contracts in
.importlinter hold it). Today the partner configuration schema (partner_config) and the payout
bounds it checks; the rest of the kernel (text rules, i18n, client address, crypto, task base,
metrics, error shapes, mail sending) still lives in config/ and moves here step by step."""
