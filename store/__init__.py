"""memlens.store: the memory graph, its history and its ledger."""
