"""Retrieval: which memories answer a query. Deterministic, and no model runs at read time.

    sources.py      what recall searches: store, HNSW indexes, resolver, query vectors
    lanes.py        bm25, vector, sentence and entity lanes, each confined to the scopes
    global_lane.py  members of the topic worlds a query selects, top-down over their levels
    fusion.py       weighted reciprocal rank fusion
    propagation.py  scores spread along precedes edges, read only as far as needed
    recall.py       lanes -> fusion -> graph step -> the bitemporal pin: ranked nodes
"""
