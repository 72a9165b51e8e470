"""Maintainer credentials: tokens, their keyed hashes, signed expiring web sessions and CSRF tokens.

Every key here is derived from the server secret (the file beside the database) with HMAC-SHA256 and a label,
so one secret serves the visitor hash, token hashes, session signatures and CSRF tokens without any two of
them sharing a key.

Token hashes are HMAC-SHA256(token key, token) rather than scrypt or PBKDF2. A slow hash protects secrets a
person chose, which can be guessed; a token here is 256 random bits, which cannot be guessed, so stretching
would add nothing but a per-request cost (and a denial-of-service lever on the authenticated routes). Keying the
hash with the server secret means a copy of the database alone does not even let anyone test a guess. A token
is `btm_<key id>_<secret part>`: the key id finds the row, then the stored and computed hashes are compared
with `hmac.compare_digest` (constant time).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

TOKEN = re.compile(r"^btm_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
SESSION_SECONDS = 8 * 3600
FORM_TOKEN_SECONDS = 3600


def derive_key(secret: bytes, label: str) -> bytes:
    return hmac.new(secret, b"benchtoward/" + label.encode(), hashlib.sha256).digest()


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class NewToken:
    key_id: str
    token: str  # shown once, never stored


@dataclass(frozen=True)
class Session:
    """A maintainer's web session, as its signed cookie states it."""

    maintainer_id: int
    key_id: str
    issued: int  # unix milliseconds (a logout and a new login may fall in the same second)
    expires: int
    nonce: str


class Keys:
    """The keys derived from the server secret, and what they sign."""

    def __init__(self, secret: bytes, session_seconds: int = SESSION_SECONDS) -> None:
        if len(secret) < 16:
            raise ValueError("the server secret is too short")
        self._token = derive_key(secret, "maintainer-token")
        self._session = derive_key(secret, "session")
        self._csrf = derive_key(secret, "csrf")
        self._form = derive_key(secret, "form")
        self.session_seconds = session_seconds

    # tokens
    def new_token(self) -> NewToken:
        key_id = secrets.token_hex(6)
        return NewToken(key_id, f"btm_{key_id}_{secrets.token_urlsafe(32)}")

    def token_hash(self, token: str) -> str:
        return hmac.new(self._token, token.encode(), hashlib.sha256).hexdigest()

    def token_matches(self, token: str, stored_hash: str) -> bool:
        return hmac.compare_digest(self.token_hash(token), stored_hash)

    # sessions
    def sign_session(self, maintainer_id: int, key_id: str, now: float | None = None) -> str:
        at = time.time() if now is None else now
        issued, expires = int(at * 1000), int(at) + self.session_seconds
        payload = f"{maintainer_id}.{key_id}.{issued}.{expires}.{secrets.token_hex(8)}"
        encoded = b64(payload.encode())
        return f"{encoded}.{self._sign(self._session, encoded)}"

    def read_session(self, cookie: str | None, now: float | None = None) -> Session | None:
        """The session a cookie states, if its signature is ours and it has not expired; else None."""
        if not cookie or len(cookie) > 300 or cookie.count(".") != 1:
            return None
        encoded, signature = cookie.split(".")
        if not hmac.compare_digest(self._sign(self._session, encoded), signature):
            return None
        try:
            maintainer, key_id, issued, expires, nonce = unb64(encoded).decode().split(".")
            session = Session(int(maintainer), key_id, int(issued), int(expires), nonce)
        except (ValueError, UnicodeDecodeError):
            return None
        return session if session.expires > (time.time() if now is None else now) else None

    def csrf_token(self, session: Session) -> str:
        """Bound to one session: a token from another session, or none, is refused."""
        return self._sign(self._csrf, f"{session.maintainer_id}.{session.issued}.{session.nonce}")

    def csrf_matches(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf_token(session), token or "")

    # forms shown before any session (login, withdrawal request): signed and dated, no cookie needed
    def form_token(self, purpose: str, now: float | None = None) -> str:
        issued = str(int(time.time() if now is None else now))
        return f"{issued}.{self._sign(self._form, f'{purpose}.{issued}')}"

    def form_token_valid(self, purpose: str, token: str | None, now: float | None = None) -> bool:
        if not token or token.count(".") != 1 or len(token) > 100:
            return False
        issued, signature = token.split(".")
        if not issued.isdigit() or not hmac.compare_digest(self._sign(self._form, f"{purpose}.{issued}"), signature):
            return False
        age = (time.time() if now is None else now) - int(issued)
        return 0 <= age <= FORM_TOKEN_SECONDS

    @staticmethod
    def _sign(key: bytes, text: str) -> str:
        return b64(hmac.new(key, text.encode(), hashlib.sha256).digest())


def parse_token(token: str) -> str | None:
    """The key id of a well-formed token, else None."""
    match = TOKEN.match(token)
    return match.group(1) if match else None
