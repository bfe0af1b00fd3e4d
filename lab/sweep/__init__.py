"""Regression watch: one row re-measured against the releases of its SUT package a registry serves.

A sweep takes one row (``sut_profiles/<row>.yaml``) and a list of releases of its SUT package, and for
each release builds the row's environment with that release in place of the pinned one (every other pin
the row's, released only where the release's own requirements contradict it, with the resolver's reason:
:mod:`lab.sweep.resolve`), runs the row as a row of its own (``<row>_v<version>``: a version is a new
row, never a changed cell; :mod:`lab.sweep.versionrow`) through ``memlab run`` and, when the row takes
it, ``memlab lifecycle run`` (:mod:`lab.sweep.measure`), verifies each set, and lines the versions up
cell by cell and check by check (:mod:`lab.sweep.lineup`), marking for every cell that changed the last
release with the old verdict and the first with the new (:mod:`lab.sweep.summary`). A range may be
halved (:mod:`lab.sweep.halving`): its ends measured, then the middle of every part whose ends differ.
:mod:`lab.sweep.latest` is ``memlab run --latest``: the newest release beside the published set.

One module, one job:

``registry``   the releases a registry serves (pip's own ``pip index versions``) and the selection of them
``resolve``    a release's requirements: the row's pins, the release in place of its pin, conflicts released
``versionrow`` the release's row: its profile and driver folder, written for ``memlab run``
``measure``    one release measured (at rest, lifecycle) and its sets verified
``lineup``     the cells of a release's sets, and the changes between releases
``halving``    the order of measurements that halves a range
``summary``    ``sweep.json`` and ``summary.md``, and their check against the sets (``check_sweep``)
``runner``     a whole sweep: the above in order, every finished release's set kept
``latest``     the newest release measured and compared with the pinned published set

May import: ``lab.profile`` (the row), ``lab.runtime`` (the cache folder, the pip a row pins),
``lab.resultset`` (reading and verifying at-rest sets) and ``lab.lifecycle`` (verifying lifecycle sets,
read only). The measurements themselves run as ``memlab`` subprocesses, as a user would run them.
"""
