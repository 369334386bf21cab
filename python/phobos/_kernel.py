from __future__ import annotations
from phobos._frontend import translate_function, Translation

class Kernel:
    def __init__(self, translation: Translation, function=None):
        self.translation = translation
        self.function = function
        self.name = translation.name
        self.source = translation.source

    @classmethod
    def from_function(cls, function):
        return cls(translate_function(function), function)
