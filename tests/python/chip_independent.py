"""The chip_independent marker: a test of code that is the same for every vendor (the
frameworks' device pickup, the CLI, process exit, the simulators' shared settings, the
wheel's failure modes). A vendor differs there only in its name and device type.

`make test` runs the Python suite's for every vendor with the default torch, and for one
vendor (the first simulated chip: it has devices anywhere) with another torch: what a
release changes there, it changes for every vendor. Most of them start processes (torch
imported afresh each time), so this is what keeps CI's second torch within its time. The
packaging suite's run for that vendor only, on every torch. The Makefile's
CHIP_INDEPENDENT=skip deselects them (test-suites-% says where)."""

CHIP_INDEPENDENT = "chip_independent: the code under test is the same for every vendor (tests/python/chip_independent.py)"
