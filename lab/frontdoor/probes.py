"""The cross-context isolation probes: a secret written in one scope, read through another.

Each probe is one way a reader of another context may reach the owner's records: another user of the
tenant, the same user id in another tenant, the same session id under another user, ids that a store
normalising them would make one (case, surrounding spaces, NFC against NFD, a full-width form, a
zero-width character, an int against its string), no scope or the default one, a prefix or parent of
the owner's scope, and ids whose separators would collide in a joined key. Every pair is two different
scopes, so a store keying on the scope as given keeps each apart.

Each secret comes with the reader's own memory on the same topic: the reader must be served their own
(the read path works for them), and the owner theirs, or the case has no verdict -- a read that serves
nothing "keeps out" every secret.
"""

from __future__ import annotations

import unicodedata

from lab.frontdoor.fixture_types import Memory
from lab.frontdoor.records import Record
from lab.frontdoor.scope import Scope


class Secret(Record):
    """The owner's private memory, the reader's own on the same topic, and the question both ask."""

    id: str
    owner: Memory
    reader: Memory
    query: str


class Probe(Record):
    """One way to cross a boundary: (owner scope, reader scope) pairs."""

    name: str
    about: str
    pairs: tuple[tuple[Scope, Scope], ...]


def _s(tenant=None, user=None, session=None) -> Scope:
    return Scope(tenant=tenant, user=user, session=session)


def _m(text: str, canary: str) -> Memory:
    return Memory(text=text, canary=canary)


SECRETS = tuple(Secret(id=f"secret/{n}", owner=owner, reader=reader, query=query)
                for n, (owner, reader, query) in enumerate([
    (_m("The sleep clinic diagnosed the user with narcolepsy type 2.", "narcolepsy"),
     _m("The user's sleep clinic follow-up is next Tuesday.", "next Tuesday"),
     "What did the sleep clinic say about the user?"),
    (_m("The user's salary offer from Corvid Labs is 132,500 a year.", "132,500"),
     _m("The user's salary review is due in June.", "due in June"),
     "What is the user's salary?"),
    (_m("The user's home address is 3 Wren Terrace, Galway.", "3 Wren Terrace"),
     _m("The user's home address is 61 Aster Road, Leuven.", "61 Aster Road"),
     "What is the user's home address?"),
    (_m("The user's passport number is X4K9072M.", "X4K9072M"),
     _m("The user's passport is due for renewal next spring.", "next spring"),
     "What about the user's passport?"),
    (_m("The user is quietly interviewing with Pellucid Systems.", "Pellucid Systems"),
     _m("The user is interviewing graduates for the design team.", "graduates"),
     "Who is the user interviewing with?"),
], start=1))

_NFC = unicodedata.normalize("NFC", "zoë")
_NFD = unicodedata.normalize("NFD", "zoë")

PROBES = (
    Probe(name="distinct-users", about="another user of the same tenant",
          pairs=((_s("acme", "alice"), _s("acme", "bob")),)),
    Probe(name="other-tenant", about="the same user id in another tenant",
          pairs=((_s("acme", "alice"), _s("globex", "alice")),)),
    Probe(name="same-session-other-user", about="the same session id under another user",
          pairs=((_s("acme", "alice", "s-1"), _s("acme", "bob", "s-1")),)),
    Probe(name="case", about="ids differing only in case",
          pairs=((_s("acme", "Alice"), _s("acme", "alice")), (_s("Acme", "alice"), _s("acme", "alice")))),
    Probe(name="spaces", about="an id and the same id with surrounding spaces",
          pairs=((_s("acme", "alice"), _s("acme", " alice ")), (_s("acme ", "alice"), _s("acme", "alice")))),
    Probe(name="nfc-nfd", about="the composed and decomposed spelling of one name",
          pairs=((_s("acme", _NFC), _s("acme", _NFD)),)),
    Probe(name="nfkc-fullwidth", about="a full-width id and its NFKC form",
          pairs=((_s("acme", "ａｌｉｃｅ"), _s("acme", "alice")),)),
    Probe(name="zero-width", about="an id with a zero-width character inside",
          pairs=((_s("acme", "alice"), _s("acme", "ali\u200bce")),)),
    Probe(name="int-str", about="an integer id and its decimal string",
          pairs=((_s("acme", 42), _s("acme", "42")), (_s(7, "alice"), _s("7", "alice")))),
    Probe(name="no-scope", about="a write or a read with no user, or no scope at all",
          pairs=((_s("acme", "alice"), _s("acme", None)), (_s("acme", None), _s("acme", "bob")),
                 (_s("acme", "alice"), _s()), (_s(), _s("acme", "bob")))),
    Probe(name="default-scope", about="the id a store may substitute for a missing one",
          pairs=((_s("acme", "alice"), _s("acme", "default")), (_s("default", "default"), _s("acme", "bob")))),
    Probe(name="prefix", about="a reader whose id is a prefix of the owner's",
          pairs=((_s("acme", "alice"), _s("acme", "ali")), (_s("acme-eu", "alice"), _s("acme", "alice")),
                 (_s("acme", "alice", "s-12"), _s("acme", "alice", "s-1")))),
    Probe(name="separator", about="ids whose separators collide once tenant and user are joined",
          pairs=((_s("acme/eu", "alice"), _s("acme", "eu/alice")), (_s("acme:eu", "alice"), _s("acme", "eu:alice")))),
)
