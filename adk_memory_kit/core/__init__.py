"""Neutral shared contracts: value objects, protocols and validation every package may use.

``core`` imports nothing from the rest of the kit except ``errors``; every other package may
import it.
"""
