"""The client's address: the one place every per-client limit reads it from.

`TRUSTED_PROXIES` says which hops in front of the server may be believed:

- empty, unset or "0" (the default): nobody. The address is the TCP peer (REMOTE_ADDR) and
  X-Forwarded-For is ignored, so a client of `make run` cannot pick its own budget.
- a count N ("1" behind one ingress): REMOTE_ADDR is the last of N proxies, each of which
  appended its peer to X-Forwarded-For; the client is the N-th entry from the right. With
  fewer entries than that, the request did not come through the proxies: REMOTE_ADDR.
- a comma list of CIDRs ("10.0.0.0/8,fd00::/8"): the hops are X-Forwarded-For plus
  REMOTE_ADDR; walking from the right, every hop inside a trusted network is a proxy and the
  first one outside is the client. A peer outside the networks makes X-Forwarded-For count
  for nothing, whatever it says.

Why not django-ipware (installed, and tried first): its proxy count and proxy list are checked
against the X-Forwarded-For header alone, never against REMOTE_ADDR, so a client that reaches
the server without passing the proxy still chooses its address by the header; and its
"no proxies" mode picks the first public address of the header rather than ignoring it.
Neither is what the limits need, hence this small parser with the usual right-to-left rule
(as Werkzeug's ProxyFix and Rails' RemoteIp do).
"""

from __future__ import annotations

import ipaddress
import os
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies_setting() -> str:
    """The raw setting: settings.TRUSTED_PROXIES, else the environment variable."""
    value = getattr(settings, "TRUSTED_PROXIES", None)
    if value is None:
        value = os.environ.get("TRUSTED_PROXIES", "")
    return str(value).strip()


@lru_cache(maxsize=8)
def trusted_proxies_parse(raw: str) -> int | tuple[Network, ...]:
    """A count of proxies, or the trusted networks. A malformed value fails loudly: a typo
    must not silently trust every address (or none)."""
    if not raw:
        return 0
    if raw.isdigit():
        return int(raw)
    networks = []
    for item in raw.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"TRUSTED_PROXIES has an empty entry: {raw!r}")
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"TRUSTED_PROXIES entry is neither a count nor a CIDR: {item!r}") from None
    return tuple(networks)


def _address(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """One hop of X-Forwarded-For (or REMOTE_ADDR): an address, maybe with a port or brackets."""
    value = value.strip().strip('"')
    if value.startswith("["):
        value = value[1 : value.find("]")] if "]" in value else value
    elif value.count(":") == 1:  # IPv4 with a port
        value = value.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def client_ip(request: HttpRequest) -> str:
    """The address each per-client budget (sends, throttles, bot check, uploads) is kept for."""
    remote = str(request.META.get("REMOTE_ADDR", ""))
    trusted = trusted_proxies_parse(trusted_proxies_setting())
    if not trusted:
        return remote
    forwarded = [hop for hop in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",") if hop.strip()]
    if isinstance(trusted, int):
        if len(forwarded) < trusted:
            return remote
        found = _address(forwarded[-trusted])
        return str(found) if found is not None else remote
    peer = _address(remote)
    if peer is None or not any(peer in network for network in trusted if network.version == peer.version):
        return remote
    client = peer
    for hop in reversed(forwarded):
        address = _address(hop)
        if address is None:
            # A trusted proxy passed on something that is no address: the last proxy we
            # believe is as far as we can tell.
            break
        client = address
        if not any(address in network for network in trusted if network.version == address.version):
            break
    return str(client)
