"""The HTTP shim boundary (issue 39): no secret copied out, no header from an unnamed variable, loopback
never proxied, a decoded answer capped while it is decoded, one deadline 1xx answers cannot extend.

Hostile shims are small servers on 127.0.0.1 in a thread of the test process (raw sockets where the
behaviour is below what http.server can say).
"""
from __future__ import annotations

import gzip
import json
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from shims import example, serve

from lab.lifecycle.adapters import AdapterError
from lab.lifecycle.adapters.http import HttpAdapter, HttpConfigError, HttpError, load_http_config
from lab.lifecycle.adapters.http_reach import loopback
from lab.lifecycle.adapters.http_transport import MAX_ANSWER_BYTES
from lab.lifecycle.doctor import doctor
from lab.lifecycle.scenario import Scope

TOKEN = "s3cr3t-T0KEN-do-not-copy"
ANN = Scope("acme", "ann")


# --- small servers -----------------------------------------------------------------------------------

def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@contextmanager
def raw_server(respond: Callable[[socket.socket, bytes, threading.Event], None]) -> Iterator[str]:
    """A raw socket server on 127.0.0.1: ``respond(conn, request, stop)`` per connection; yields its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.1)
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                request = _read_request(conn)
                if request:
                    respond(conn, request, stop)
            except OSError:
                pass

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        sock.close()


def _config(tmp_path: Path, url: str, extra: str = "", timeout: float = 3) -> Path:
    path = tmp_path / "shim.yaml"
    path.write_text(f"contract: memlab\nbase_url: {url}\ntimeouts: {{mutation: {timeout}, query: {timeout}}}\n{extra}")
    return path


def _peer_config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "peer.yaml"
    path.write_text(f"base_url: {url}\ntimeout_seconds: 3\nauth_token_env: SHIM_TOKEN\n")
    return path


# --- 1. secrets never copied out -----------------------------------------------------------------------

def test_a_token_ending_in_a_newline_is_refused_at_load_naming_the_variable_not_its_value(monkeypatch, tmp_path):
    monkeypatch.setenv("SHIM_TOKEN", TOKEN + "\n")
    with pytest.raises(HttpConfigError) as err:
        load_http_config(_peer_config(tmp_path, "http://127.0.0.1:9"))
    assert err.value.field == "auth_token_env" and "SHIM_TOKEN" in str(err.value)
    assert TOKEN not in str(err.value) and TOKEN not in repr(err.value.__dict__)
    path = _config(tmp_path, "http://127.0.0.1:9", 'env: [SHIM_TOKEN]\nheaders: {Authorization: "Bearer ${SHIM_TOKEN}"}\n')
    with pytest.raises(HttpConfigError) as err:
        load_http_config(path)
    assert err.value.field == "headers.Authorization" and "SHIM_TOKEN" in str(err.value)
    assert TOKEN not in str(err.value)


def test_a_token_turned_bad_after_load_is_refused_naming_only_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("SHIM_TOKEN", TOKEN)
    config = load_http_config(_peer_config(tmp_path, "http://127.0.0.1:9"))
    monkeypatch.setenv("SHIM_TOKEN", TOKEN + "\r\n")
    with pytest.raises(AdapterError) as err:
        HttpAdapter(config)
    assert "SHIM_TOKEN" in str(err.value) and TOKEN not in str(err.value)


def test_a_transport_error_quoting_the_header_is_redacted(monkeypatch, tmp_path):
    """The HTTP library quotes an illegal header in full: the text memlab keeps never holds the token."""
    monkeypatch.setenv("SHIM_TOKEN", TOKEN)
    config = load_http_config(_peer_config(tmp_path, "http://127.0.0.1:9"))

    def quoting(request: httpx.Request):
        raise httpx.LocalProtocolError(f"Illegal header value {request.headers['authorization'].encode()!r} "
                                       f"({TOKEN!r}, {json.dumps(TOKEN)})")

    with HttpAdapter(config, transport=httpx.MockTransport(quoting)) as sut, pytest.raises(HttpError) as err:
        sut.begin("x")
    shown = " ".join([str(err.value), err.value.message, err.value.fix, repr(err.value.args), repr(err.value.body)])
    assert TOKEN not in shown and "[redacted]" in err.value.message


class _Echo(BaseHTTPRequestHandler):
    """Answers every POST with an error page that echoes the request's headers."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        data = json.dumps({"error": "bad request", "headers": dict(self.headers),
                           "fix": f"your headers were {dict(self.headers)}"}).encode()
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


def test_a_shim_echoing_the_token_in_its_error_page_is_redacted_in_what_is_saved(monkeypatch, tmp_path):
    monkeypatch.setenv("SHIM_TOKEN", TOKEN)
    with serve(handler=_Echo) as server:
        config = load_http_config(_peer_config(tmp_path, server.url))
        with HttpAdapter(config) as sut, pytest.raises(HttpError) as err:
            sut.begin("x")
        shown = " ".join([str(err.value), err.value.message, err.value.fix, json.dumps(err.value.body)])
        assert TOKEN not in shown and "[redacted]" in json.dumps(err.value.body)
        assert err.value.kind == "status"
        report = doctor(config)
    assert not report.ok and TOKEN not in json.dumps(report.to_json()) and TOKEN not in "\n".join(report.lines())


def test_a_token_echoed_in_a_2xx_answer_is_redacted_in_the_evidence(monkeypatch, tmp_path):
    monkeypatch.setenv("SHIM_TOKEN", TOKEN)
    config = load_http_config(_peer_config(tmp_path, "http://127.0.0.1:9"))
    answer = {"answer": "Lisbon", "retrieved": [{"value": "Lisbon", "debug": f"auth was Bearer {TOKEN}"}]}
    with HttpAdapter(config, transport=httpx.MockTransport(lambda r: httpx.Response(200, json=answer))) as sut:
        served = sut.query(ANN, "Where?")
    assert TOKEN not in served.body and "[redacted]" in served.body and served.text == "Lisbon"
    assert TOKEN not in json.dumps(served.retrieved)


# --- 2. header variables on an allow-list --------------------------------------------------------------

def test_a_header_naming_a_variable_the_config_does_not_list_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", TOKEN)
    path = _config(tmp_path, "http://127.0.0.1:9", "headers:\n  X-Key: ${AWS_SECRET_ACCESS_KEY}\n")
    with pytest.raises(HttpConfigError) as err:
        load_http_config(path)
    assert (err.value.line, err.value.field) == (5, "headers.X-Key")
    assert "AWS_SECRET_ACCESS_KEY" in err.value.message and "env: [AWS_SECRET_ACCESS_KEY]" in err.value.fix
    assert str(err.value).startswith(f"{path}:5: headers.X-Key: ") and TOKEN not in str(err.value)


def test_a_header_variable_listed_in_env_is_sent(monkeypatch, tmp_path):
    monkeypatch.setenv("SHIM_TOKEN", TOKEN)
    seen = []
    config = load_http_config(_config(tmp_path, "http://127.0.0.1:9",
                                      'env: [SHIM_TOKEN]\nheaders: {Authorization: "Bearer ${SHIM_TOKEN}"}\n'))
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200, json={"ok": True}))
    with HttpAdapter(config, transport=transport) as sut:
        sut.begin("x")
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}" and TOKEN not in json.dumps(sut.describe())


@pytest.mark.parametrize("env, fix", [("env: SHIM_TOKEN\n", "env: [SHIM_TOKEN]"),
                                      ("env: ['bad name']\n", "letters, digits and _")])
def test_a_bad_env_list_is_a_config_error(tmp_path, env, fix):
    with pytest.raises(HttpConfigError) as err:
        load_http_config(_config(tmp_path, "http://127.0.0.1:9", env))
    assert err.value.field.startswith("env") and fix in err.value.fix


# --- 3. loopback never proxied --------------------------------------------------------------------------

SPELLINGS = ["localhost", "localhost.", "127.1", "[::ffff:127.0.0.1]", "2130706433", "0x7f000001",
             "localhost.localdomain", "ip6-localhost", "127.0.0.2", "[::1]", "127.0.0.1", "LOCALHOST"]


@pytest.mark.parametrize("host", SPELLINGS)
def test_every_spelling_of_loopback_is_loopback(host):
    assert loopback(host) and loopback(host.strip("[]"))


@pytest.mark.parametrize("host", ["192.0.2.1", "[::ffff:192.0.2.1]", "10.1", "[2001:db8::1]", "", None,
                                  "no-such-host.invalid"])
def test_other_hosts_are_not_loopback(host):
    assert not loopback(host)


def _resolves(host: str) -> bool:
    try:
        return bool(socket.getaddrinfo(host.strip("[]"), 80, proto=socket.IPPROTO_TCP))
    except (OSError, UnicodeError):
        return False


def test_no_spelling_of_loopback_reaches_a_proxy(monkeypatch, tmp_path):
    reached: list[bytes] = []

    def proxy(conn, request, stop):
        reached.append(request)
        conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    with raw_server(proxy) as proxy_url, serve() as shim:
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(var, proxy_url)
        for var in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(var, raising=False)
        port = shim.server_address[1]
        tried = []
        for host in SPELLINGS:
            if not _resolves(host):
                continue  # the decision for it is asserted above
            tried.append(host)
            config = load_http_config(_config(tmp_path, f"http://{host}:{port}", timeout=2))
            with HttpAdapter(config) as sut:
                try:
                    sut.begin("x")
                except HttpError as exc:
                    assert exc.kind == "connect", (host, exc)  # nothing listens at that address: never the proxy
        assert reached == [], reached
        assert {"127.1", "2130706433", "0x7f000001"} <= set(tried)
        # another address still follows the environment's proxy (and the proxy does record a leak)
        config = load_http_config(_config(tmp_path, f"http://192.0.2.1:{port}", timeout=2))
        with HttpAdapter(config) as sut, pytest.raises(HttpError) as err:
            sut.begin("x")
    assert err.value.status == 502 and len(reached) == 1 and b"192.0.2.1" in reached[0]


# --- 4. the decoded size capped while decoding ------------------------------------------------------------

def _gzipped_zeros(size: int) -> bytes:
    pack = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    return b"".join([*(pack.compress(block) for _ in range(size >> 20)), pack.flush()])


def _answer(encoding: str, body: bytes):
    def respond(conn, request, stop):
        conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: {encoding}\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    return respond


def refused_within_memory(tmp_path, encoding: str, body: bytes) -> HttpError:
    """The error of a reset answered with ``body`` under ``Content-Encoding: encoding``, after checking
    that reading it never held more than a few times the answer cap."""
    with raw_server(_answer(encoding, body)) as url:
        sut = HttpAdapter(load_http_config(_config(tmp_path, url)))
        tracemalloc.start()
        try:
            with pytest.raises(HttpError) as err:
                sut.begin("x")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            sut.close()
    assert peak < 4 * MAX_ANSWER_BYTES, peak
    return err.value


def test_stacked_gzip_is_refused_with_memory_bounded(tmp_path):
    bomb = gzip.compress(_gzipped_zeros(128 << 20), 9)  # a few KB that decode to 128 MiB of zeros
    assert len(bomb) < 16384
    error = refused_within_memory(tmp_path, "gzip, gzip", bomb)
    assert error.kind == "encoding" and "gzip, gzip" in error.message


def test_a_gzip_bomb_is_cut_at_the_cap_while_it_is_decoded(tmp_path):
    error = refused_within_memory(tmp_path, "gzip", _gzipped_zeros(64 << 20))  # ~64 KB that decode to 64 MiB
    assert error.kind == "size" and "decoded" in error.message


@pytest.mark.parametrize("encoding, pack", [("gzip", gzip.compress), ("deflate", zlib.compress),
                                            ("identity", lambda b: b)])
def test_one_encoding_is_read(tmp_path, encoding, pack):
    with raw_server(_answer(encoding, pack(b'{"ok": true}'))) as url:
        with HttpAdapter(load_http_config(_config(tmp_path, url))) as sut:
            sut.begin("x")


def test_an_unknown_encoding_is_a_named_error(tmp_path):
    with raw_server(_answer("br", b"\x0b\x02\x80{}\x03")) as url:
        with HttpAdapter(load_http_config(_config(tmp_path, url))) as sut, pytest.raises(HttpError) as err:
            sut.begin("x")
    assert err.value.kind == "encoding" and "br" in err.value.message and "gzip" in err.value.fix


# --- 5. one deadline that informational answers cannot extend ----------------------------------------------

def test_endless_102_processing_is_cut_at_the_deadline(tmp_path):
    def processing(conn, request, stop):
        end = time.monotonic() + 15
        while time.monotonic() < end and not stop.is_set():
            conn.sendall(b"HTTP/1.1 102 Processing\r\n\r\n")
            time.sleep(0.5)

    with raw_server(processing) as url:
        with HttpAdapter(load_http_config(_config(tmp_path, url, timeout=3))) as sut:
            start = time.monotonic()
            with pytest.raises(HttpError) as err:
                sut.begin("x")
            took = time.monotonic() - start
    assert err.value.kind == "timeout" and "within 3 s" in err.value.message
    assert 2.9 <= took < 10, took


def test_the_example_shim_still_answers_within_its_deadline(tmp_path):
    with serve() as shim:
        with HttpAdapter(load_http_config(_config(tmp_path, shim.url, 'capabilities: {ttl: true}\n'))) as sut:
            sut.begin("x")
            sut.write(ANN, "city", "Lisbon", None)
            assert "Lisbon" in sut.query(ANN, "Where?").text
            assert isinstance(example.Handler, type)
