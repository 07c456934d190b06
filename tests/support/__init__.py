"""Test support: real model APIs on loopback, fixture workspaces."""
