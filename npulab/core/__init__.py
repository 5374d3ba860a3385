"""The course's foundation, used by every chapter: device choice, timing, provenance, peaks, plotting, paths,
notebook cells, the environment summary and command-line plumbing. It imports nothing else of npulab."""
