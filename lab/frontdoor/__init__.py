"""The front door: what an attacker can plant through the SUT's own memory write API, and what a
legitimate user of another context can read through its read path.

Two measurements share one harness. **Write-path poisoning**: six families of fixtures
(``fixture_types``, ``fixtures``), each written on three attacker channels (``channels``: the
untrusted label, the trusted label without a valid signature, and a trusted label signed by the
genuine writer because the content came through the agent), judged on the fixture's canary fact with
a positive and a utility control (``verdicts``), folded into cells and a level P0..P3.
**Cross-context isolation**: a secret written in one scope, read from another (``probes``), counted
as leaks per probe. The SUT decides: the runner (``runner``) hands each write to the store exactly as
the channel defines it and never checks a signature, a label or a scope itself. Four in-process
calibration stores (``reference``) sit at known levels.

A row's result is saved as a result set (``saved``, ``writer``, ``folder``), with the result sets'
digests, manifest pins and signatures, and verified from its saved writes and reads (``verify``, each
row read by its schema's reader: ``rows``); ``outcome`` says what a row means for a run (held, a
finding, inconclusive).

May import: ``lab.lifecycle`` (its judge's matching decides what was served; its grounds name a set's faults; its HTTP
shim config and transport reach a team's service, ``http_store``) and
``lab.resultset`` (digests, manifest pins, signatures, the folder lock); the measuring side (the channels,
fixtures, probes, runner, verdicts, results, stores) imports nothing of the lab but the lifecycle judge's matching.
"""
