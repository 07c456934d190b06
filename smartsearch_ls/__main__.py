"""`python -m smartsearch_ls` starts the language server, as editors that launch an interpreter expect."""

from smartsearch_ls.server.main import main

if __name__ == "__main__":  # not when a spawned indexing worker imports this module as `__mp_main__`
    main()
