"""`python -m warpsmith`: the same as the `warpsmith` command (for machines where the package
runs from a source tree without being installed)."""

from .cli.main import main

main()
