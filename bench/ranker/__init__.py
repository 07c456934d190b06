"""Fitting and measuring the local judge's ranker (`smartsearch_ls.judge.local.ranker`)."""
