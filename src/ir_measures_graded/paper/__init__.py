"""Experiments of Scheel et al. (2011), reusable and tested; the notebooks in notebooks/ call these."""
