"""The warm index of one root and the lexical shortlist drawn from it."""
