#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lava-fetch.py [--identity NAME] URL JOB DIR: a LAVA job through the
server's REST API (v0.2): DIR/job.json (/api/v0.2/jobs/JOB/: state,
health, device, start and end time), DIR/log.yaml (its log) and every page of its test cases,
DIR/tests-K.json (/api/v0.2/jobs/JOB/tests/), which lava/lava-results.py
reads. URL is the server's base (https://lava.example.org/). The token,
when the job is not public: $BL_LAVA_TOKEN, or the one of lavacli's
identity NAME ($XDG_CONFIG_HOME/lavacli.yaml). Exit 0, or 1 with one
line on stderr (HTTP error, not JSON, too many pages): nothing is
guessed; 2 when a file cannot be written (each is replaced whole). Runs wherever the server answers (kernel/lava.sh runs it beside
lavacli)."""

import json
import os
import re
import sys
import tempfile
import urllib.error
import urllib.request

# A job of ours has a few hundred cases: 100 pages of 500 is far past it,
# and bounds a server that keeps answering "next".
PAGE = 500
MAX_PAGES = 100
TIMEOUT = 60


def identity_token(name):
    import yaml

    conf = os.path.join(os.environ.get("XDG_CONFIG_HOME", os.path.expanduser("~/.config")),
                        "lavacli.yaml")
    with open(conf, encoding="utf-8") as f:
        ident = (yaml.safe_load(f) or {}).get(name)
    if not isinstance(ident, dict):
        raise SystemExit(f"lava-fetch.py: no identity {name!r} in {conf}")
    return ident.get("token")


def get(url, token, raw=False):
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        req.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            body = resp.read()
    except (urllib.error.URLError, OSError) as exc:
        raise SystemExit(f"lava-fetch.py: {url}: {exc}") from None
    if raw:
        return body
    try:
        return json.loads(body)
    except ValueError:
        raise SystemExit(f"lava-fetch.py: {url}: not JSON") from None


def save(path, data):
    """path replaced whole or not at all (a temporary beside it, renamed);
    a failed write is exit 2, an error of this machine, never a result."""
    text = data if isinstance(data, bytes) else (json.dumps(data, indent=1) + "\n").encode()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.",
                                   dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp:
            os.unlink(tmp)
        print(f"lava-fetch.py: cannot write {path}: {exc.strerror}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    identity = None
    if len(argv) > 2 and argv[0] == "--identity":
        identity, argv = argv[1], argv[2:]
    # A job id is ASCII digits: str.isdigit() also takes "²", which int() refuses.
    if len(argv) != 3 or not re.fullmatch(r"[0-9]+", argv[1]):
        print("usage: lava-fetch.py [--identity NAME] URL JOB DIR", file=sys.stderr)
        return 2
    base, job, out = argv[0].rstrip("/"), argv[1], argv[2]
    token = os.environ.get("BL_LAVA_TOKEN") or (identity and identity_token(identity))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        print(f"lava-fetch.py: cannot create {out}: {exc.strerror}", file=sys.stderr)
        return 2
    save(os.path.join(out, "job.json"), get(f"{base}/api/v0.2/jobs/{job}/", token))
    # The job's own log (YAML records), what to read when it failed.
    save(os.path.join(out, "log.yaml"), get(f"{base}/api/v0.2/jobs/{job}/logs/", token, raw=True))
    url = f"{base}/api/v0.2/jobs/{job}/tests/?limit={PAGE}"
    for page in range(1, MAX_PAGES + 1):
        data = get(url, token)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise SystemExit(f"lava-fetch.py: {url}: not a page of test cases")
        save(os.path.join(out, f"tests-{page}.json"), data)
        url = data.get("next")
        if not url:
            print(f"lava-fetch.py: job {job}: {data.get('count')} test cases in {page} pages",
                  file=sys.stderr)
            return 0
    raise SystemExit(f"lava-fetch.py: job {job}: more than {MAX_PAGES} pages")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
