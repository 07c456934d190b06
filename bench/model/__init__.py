"""How the shipped embedding model was made from its source file, and a check that it still can be (`__main__`)."""
