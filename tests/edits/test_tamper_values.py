"""T8's new values are ones the SUT's reader still parses: a time moves as a time, in its own format."""

from hypothesis import given
from hypothesis import strategies as st

from edits.values import DAY, tamper_value


@given(st.integers(min_value=10**9, max_value=2 * 10**9), st.integers(min_value=1, max_value=9), st.data())
def test_a_timestamp_stored_as_decimal_text_moves_a_day_and_keeps_its_decimals(seconds, places, data):
    fraction = data.draw(st.text(alphabet="0123456789", min_size=places, max_size=places))
    old = f"{seconds}.{fraction}"
    new = tamper_value("timestamp", old)
    assert isinstance(new, str) and len(new.split(".")[1]) == places
    assert new == f"{seconds + DAY}.{fraction}"  # the same instant's fraction, one day on: float() parses it


def test_integer_text_numbers_and_milliseconds_move_a_day():
    assert tamper_value("timestamp", "1796146812") == str(1796146812 + DAY)
    assert tamper_value("timestamp", 1796146812.5) == 1796146812.5 + DAY
    assert tamper_value("timestamp", 1796146812000) == 1796146812000 + DAY * 1000
