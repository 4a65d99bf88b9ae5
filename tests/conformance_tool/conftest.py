# The conformance tool is run by `make conformance`, not collected by pytest:
# its worker imports torch_fl (a built backend) and runs OpInfo samples for
# minutes. Its rules are unit-tested in tests/conformance/ (make test-codegen).
collect_ignore_glob = ["*.py"]
