"""The rejection grounds of a lifecycle result set (lab.lifecycle.verify): the at-rest grounds that
apply to it, and its own. Apart from the verifier, so that ``memlab verify --help`` loads none of it.
"""

from lab.resultset.grounds import GROUNDS

LIFECYCLE_GROUNDS = {
    **{k: GROUNDS[k] for k in ("bad-signature", "signature-key-mismatch", "signature-missing", "digest-mismatch",
                               "row-missing", "row-extra", "row-malformed", "evidence-missing", "evidence-extra",
                               "unsafe-file")},
    "row-not-derivable": "a row differs from what its saved scenarios and answers give, or a file of scenarios/ "
                         "is no saved scenario",
    "run-malformed": "run.json does not describe the rows (kind, rows with their SUT facts), or the manifest "
                     "states another run id, lab or fail_on than run.json",
}
