"""Text helpers every layer may use: sentences, content words, filler, people.

A neutral floor below storage and understanding alike (it imports nothing of the kit). Import
the module you need (``adk_memory_kit.text.sentences``, ``.signals``, ``.people``); this
package imports none of them.
"""
