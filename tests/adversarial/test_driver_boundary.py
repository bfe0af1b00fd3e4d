"""The driver boundary against tiny hostile drivers: bounded lines (an endless line never grows
the lab), strict answers, and exactly one answer per request (a forged first answer is never
taken: the call or the finish of that process is a harness error)."""

import sys
import textwrap
import time
import tracemalloc

import pytest

from lab.driver import MAX_LINE_BYTES, DriverClient, DriverError

PRELUDE = '''
import json, sys
def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def served(rid, text="genuine"):
    return {"id": rid, "ok": True, "records": [{"id": "1", "text": text}], "signals": []}
'''

HONEST = '''
for line in sys.stdin:
    answer(served(json.loads(line)["id"]))
'''
ENDLESS = '''
sys.stdin.readline()
chunk = "x" * 65536
while True:
    sys.stdout.write(chunk); sys.stdout.flush()
'''
HUGE = '''
rid = json.loads(sys.stdin.readline())["id"]
answer(served(rid, "y" * (20 * 1024 * 1024)))
sys.stdin.read()
'''
TWICE = '''
for line in sys.stdin:
    rid = json.loads(line)["id"]
    answer(served(rid, "forged"))
    answer(served(rid))
'''
TWICE_LATE = '''
import time
for line in sys.stdin:
    rid = json.loads(line)["id"]
    answer(served(rid, "forged"))
    time.sleep(0.3)
    answer(served(rid))
'''
EARLY = '''
answer(served(1, "forged"))
for line in sys.stdin:
    answer(served(json.loads(line)["id"]))
'''
AT_EXIT = '''
for line in sys.stdin:
    answer(served(json.loads(line)["id"]))
sys.stdout.write(("z" * 1000 + "\\n") * 2000); sys.stdout.flush()
'''
NAN = '''
rid = json.loads(sys.stdin.readline())["id"]
sys.stdout.write('{"id": %d, "ok": true, "records": [{"text": "a", "score": NaN}], "signals": []}\\n' % rid)
sys.stdout.flush(); sys.stdin.read()
'''
DUPLICATE = '''
rid = json.loads(sys.stdin.readline())["id"]
sys.stdout.write('{"id": %d, "ok": false, "ok": true, "records": [], "signals": []}\\n' % rid)
sys.stdout.flush(); sys.stdin.read()
'''


def client(tmp_path, body, limits=None):
    script = tmp_path / "driver.py"
    script.write_text(textwrap.dedent(PRELUDE) + textwrap.dedent(body))
    drv = DriverClient([sys.executable, "-u", str(script)], {"PATH": "/usr/bin:/bin"}, tmp_path, tmp_path / "sut.log")
    return (drv.limit(*limits) if limits else drv).start()


def conversation(drv, ops=2):
    """``ops`` reads and the finish of the process, as a trial does; the answers taken."""
    try:
        answers = [drv.call("read", 10, context="A") for _ in range(ops)]
        drv.finish()
        return answers
    finally:
        drv.stop()


def test_an_honest_driver_is_taken_as_it_answers(tmp_path):
    answers = conversation(client(tmp_path, HONEST), ops=3)
    assert [a["records"][0]["text"] for a in answers] == ["genuine"] * 3


def test_an_endless_line_is_cut_at_the_limit_without_growing_the_lab(tmp_path):
    drv = client(tmp_path, ENDLESS)
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(DriverError, match=f"longer than {MAX_LINE_BYTES} bytes") as caught:
            drv.call("read", 30, context="A")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        drv.stop()
    assert time.monotonic() - started < 10  # at the limit, not at the op timeout
    assert peak < 4 * MAX_LINE_BYTES, f"the lab held {peak} bytes for one line"
    assert "MAX_LINE_BYTES" in str(caught.value) and "SUT log" in str(caught.value)


def test_the_profile_sets_the_line_limit(tmp_path):
    drv = client(tmp_path, ENDLESS, limits=(65536, 65536))
    with pytest.raises(DriverError, match=r"longer than 65536 bytes \(the profile's limits.line_bytes"):
        conversation(drv, ops=1)


def test_an_answer_over_the_profile_answer_limit_is_refused_not_taken(tmp_path):
    big = HUGE.replace("20 * 1024 * 1024", "200 * 1024")
    assert conversation(client(tmp_path, big), ops=1)  # within the default limits: taken
    with pytest.raises(DriverError, match=r"more than the profile's limits.answer_bytes \(100000\)"):
        conversation(client(tmp_path, big, limits=(1 << 24, 100_000)), ops=1)


def test_a_20_mb_answer_is_refused(tmp_path):
    with pytest.raises(DriverError, match="longer than"):
        conversation(client(tmp_path, HUGE), ops=1)


@pytest.mark.parametrize("body", [TWICE, TWICE_LATE, EARLY], ids=["twice", "twice-late", "before-request"])
def test_a_forged_first_answer_is_never_taken(tmp_path, body):
    with pytest.raises(DriverError, match="no request asked for") as caught:
        conversation(client(tmp_path, body), ops=2)
    assert "exactly one answer per request" in str(caught.value)


def test_a_second_answer_to_the_last_request_is_found_at_finish(tmp_path):
    drv = client(tmp_path, TWICE_LATE)
    first = drv.call("read", 10, context="A")
    assert first["records"][0]["text"] == "forged"  # taken so far; the finish must void it
    with pytest.raises(DriverError, match=r"no request asked for.*genuine"):
        drv.finish()


def test_output_at_exit_neither_hangs_the_stop_nor_passes(tmp_path):
    started = time.monotonic()
    with pytest.raises(DriverError, match="no request asked for"):
        conversation(client(tmp_path, AT_EXIT), ops=1)
    assert time.monotonic() - started < 8  # 2 MB written after stdin closed: read while waiting, not a stuck pipe


@pytest.mark.parametrize("body,why", [(NAN, "NaN is not JSON"), (DUPLICATE, "a key appears twice")],
                         ids=["nan", "duplicate-key"])
def test_an_answer_a_strict_reader_refuses_is_a_fault(tmp_path, body, why):
    with pytest.raises(DriverError, match=f"garbage, not JSON \\({why}"):
        conversation(client(tmp_path, body), ops=1)
