"""Ascend hardware as executable models: the Da Vinci core, Cube unit, private data formats, roofline,
interconnect topology and the α–β cost model of collectives."""
