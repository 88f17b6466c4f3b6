"""`python -m hadara_sim`: the hadara-sim command, run by the Python given (where the script is not on
PATH, or another environment's Python)."""

from .cli import main

if __name__ == "__main__":  # not again in a worker process, which imports the parent's main module
    main()
