"""The rejection grounds of a front-door result set (lab.frontdoor.verify): the at-rest and lifecycle
grounds that apply to it, and its own two. Apart from the verifier, so that naming them loads none of it.
"""

from lab.lifecycle.grounds import LIFECYCLE_GROUNDS

FRONTDOOR_GROUNDS = {
    **{k: LIFECYCLE_GROUNDS[k] for k in ("bad-signature", "signature-key-mismatch", "signature-missing",
                                         "digest-mismatch", "row-missing", "row-extra", "row-malformed",
                                         "evidence-missing", "evidence-extra", "unsafe-file", "run-malformed")},
    "verdict-differs": "a fixture's or an isolation case's saved verdict differs from what its saved writes and "
                       "reads give",
    "figure-differs": "a row's stated cells, level or probe tallies differ from what its saved verdicts give",
}
