"""The rejection grounds of ``memlab verify``, by name, with what each means (docs/results.md).

Kept apart from the verifier (lab.resultset.verify) so that ``memlab verify --help``, which lists
them, loads none of it.
"""

#: Every rejection ground, with what it means (docs/results.md explains each).
GROUNDS = {
    "unknown-method-revision": "the manifest or a row names a method revision this verifier does not know",
    "unknown-decision-rules": "the manifest states decision rules other than those the recount implements",
    "bad-signature": "manifest.sig does not verify over manifest.json",
    "signature-key-mismatch": "the signature verifies, but by another key than --pubkey pins",
    "signature-missing": "--pubkey was given but the set has no manifest.sig",
    "digest-mismatch": "a pinned file's digest differs from the manifest's",
    "row-missing": "the manifest lists a row file that is absent, or run.json a row the set has no file of",
    "row-extra": "a file in rows/ that the manifest does not list (a stray *.tmp too)",
    "row-malformed": "a row (or its manifest entry) lacks the shape of a memlab row",
    "evidence-missing": "the manifest lists an evidence file that is absent",
    "evidence-extra": "an observation or log file that the manifest does not list (a stray *.tmp too)",
    "run-disagrees": "the manifest states another run id or lab than run.json, or a row run.json does not list",
    "run-incomplete": "run.json says the run did not complete (interrupted, or killed while running): a partial set",
    "unsafe-file": "a symlink, or a file that is not a regular file, inside the result set",
    "recount-differs": "a stated metric, count, group rate, level or evaluability differs from the recount",
    "verdict-not-derivable": "a cell differs from what its saved observations give",
    "row-not-derivable": "a row's controls or stated facts differ from what its saved observations give",
    "c3-not-derivable": "a saved C3 result differs from what C3 re-run on the observation's saved evidence gives, "
                        "or a case's store dump is not the one seeded store every case starts from",
    "compose-not-derivable": "a compose row differs from what its saved trials give, is missing, or is one no row "
                             "of the set derives",
}
