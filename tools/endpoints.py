"""Which secrets an approved run may send, and where: the operator's allowlists.

An approved run's job reads the variable named `api_key_env` from the server's environment and sends its value
as a bearer token to the run's endpoint. Without a rule a maintainer (or whoever stole a maintainer's session)
could name any variable (a cloud credential, the paper reader's key) and any URL, and receive the secret. So a
name is accepted only when the operator listed it (`--endpoint-key-envs`) or it starts with `KEY_PREFIX`, a
prefix no other software uses; and when the operator lists endpoint hosts (`--endpoint-hosts`), only those.
A refusal is `bad_request` and is written to the audit log, since it may be someone probing.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from tools.errors import BadRequest

KEY_PREFIX = "BENCHTOWARD_KEY_"


def names(listed: str | None) -> frozenset[str]:
    """A comma- or space-separated list of names, as a setting gives it."""
    return frozenset(part for part in (listed or "").replace(",", " ").split() if part)


@dataclass(frozen=True)
class EndpointPolicy:
    key_envs: frozenset[str] = frozenset()  # besides those starting with KEY_PREFIX
    hosts: frozenset[str] = frozenset()  # empty: any host

    @classmethod
    def from_settings(cls, key_envs: str | None, hosts: str | None) -> EndpointPolicy:
        return cls(key_envs=names(key_envs), hosts=frozenset(host.lower() for host in names(hosts)))

    def refusal(self, endpoint: str | None, api_key_env: str | None) -> str | None:
        """Why this endpoint and key variable may not be used together, or None when they may."""
        if api_key_env is not None and not (api_key_env.startswith(KEY_PREFIX) or api_key_env in self.key_envs):
            return (
                f"api_key_env {api_key_env[:100]!r} is not allowed: name a variable starting with {KEY_PREFIX} "
                "or one the operator listed in --endpoint-key-envs"
            )
        host = (urlsplit(endpoint).hostname or "") if endpoint else ""
        if endpoint is not None and self.hosts and host not in self.hosts:
            return f"endpoint host {host[:200]!r} is not allowed: the operator lists the hosts in --endpoint-hosts"
        return None

    def check(self, endpoint: str | None, api_key_env: str | None) -> None:
        reason = self.refusal(endpoint, api_key_env)
        if reason is not None:
            raise BadRequest(reason)
