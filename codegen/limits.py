"""Bounds on what a spec can make the generator do.

Specs arrive as vendor pull requests that CI generates and builds, so a spec
is untrusted input: each bound turns a hostile or broken spec into a spec
error, instead of a hang, a MemoryError or a RecursionError.
"""

# A spec with all its includes, in bytes. The largest real spec is ~16 KB;
# composing 2 MiB of YAML takes about a second.
SPEC_BYTES = 2 * 1024 * 1024

# An SDK or glue header the spec names (its declarations are searched for the
# functions the spec calls). Real headers are ~10 KB.
HEADER_BYTES = 16 * 1024 * 1024

# Mappings and lists inside each other. Real specs nest 5 deep
# (custom → op → backward → output → like).
NESTING_DEPTH = 32

# Includes within includes. Real specs include one level (specs/common/).
INCLUDE_DEPTH = 8

# A `when:` guard, in characters: real guards are under 60. The bound also
# bounds how deep a guard can nest.
GUARD_CHARS = 500

# A report names this many errors in full and counts the rest: past a hundred,
# more lines help nobody, and each suggestion costs a search over the candidates.
REPORTED_ERRORS = 100
