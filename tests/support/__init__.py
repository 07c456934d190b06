"""Test support shared by test modules: model APIs on loopback, in-process judges, server sessions, fault servers."""
