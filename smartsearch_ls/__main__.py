"""`python -m smartsearch_ls` starts the language server, as editors that launch an interpreter expect."""

from smartsearch_ls.server.main import main

main()
