"""The judge: does a shortlisted snippet do what the query describes? Any Pydantic AI model can answer."""
