"""nginx (Debian's package) on loopback in front of a `benchtoward serve`, with deploy/nginx/benchtoward.conf used
as it is: only its placeholders are filled in. Everything nginx writes stays in one folder (no root paths), it runs
in the foreground (`daemon off`) and stops with the test. Used by tests/test_live_nginx.py and bench/load_bench.py.
"""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "deploy" / "nginx" / "benchtoward.conf"
MAIN = """# The part of nginx.conf Debian's package provides, with every path in {folder}.
daemon off;
worker_processes 1;
{user}pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/benchtoward.conf;
}}
"""


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def site_config(upstream: str, listen: str, cache: Path, server_name: str = "localhost") -> str:
    text = SITE.read_text(encoding="utf-8")
    for placeholder, value in {
        "__UPSTREAM__": upstream,
        "__LISTEN__": listen,
        "__SERVER_NAME__": server_name,
        "__CACHE_DIR__": str(cache),
    }.items():
        text = text.replace(placeholder, value)
    return text


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def nginx_in_front(upstream: str, port: int, folder: Path, timeout: float = 30) -> Iterator[str]:
    """nginx listening on 127.0.0.1:`port`, proxying to `upstream` (host:port); yields its URL."""
    binary = nginx_binary()
    if binary is None:
        raise FileNotFoundError("nginx is not installed (make system-tools installs Debian's package)")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "benchtoward.conf").write_text(site_config(upstream, f"127.0.0.1:{port}", folder / "cache"))
    user = f"user {getpass.getuser()};\n" if os.geteuid() == 0 else ""  # as root, workers would drop to nobody
    (folder / "nginx.conf").write_text(MAIN.format(folder=folder, user=user))
    log = (folder / "stderr.log").open("wb")
    command = [binary, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(folder / "error.log")]
    process = subprocess.Popen(command, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while not answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                errors = (folder / "error.log").read_text(errors="replace") if (folder / "error.log").exists() else ""
                raise RuntimeError(f"nginx did not answer: {(folder / 'stderr.log').read_text()}{errors}")
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
