"""Cut files into snippets worth judging, one declaration each where the language allows, and list the
declarations they hold; anything unparseable is cut into plain line windows."""

from smartsearch_ls.chunking.chunker import chunk_file

__all__ = ["chunk_file"]
