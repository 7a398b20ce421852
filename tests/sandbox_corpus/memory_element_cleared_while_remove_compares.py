# expect: exception
# expect-kernel: exception
# C `xml.etree.ElementTree.Element.remove` compares each child with the element to remove and reads the children's
# table again after each comparison, without checking that it is still there: an `__eq__` of the code's own (on an
# Element subclass, which the comparison asks first) that clears the parent frees the table and leaves a NULL in its
# place, and the next read of it dies of SIGSEGV (CPython 3.11; checked in later releases). A NULL read, not a
# use-after-free: nothing of the freed table is read or written, and the code gets no primitive from it; the host
# reports the child's death as `crashed` in every set, with nothing leaked. Pinned here so that a change of that
# shows (the same child replacing the children, or removing some, is checked: ValueError). Since the forty-sixth
# round `_elementtree` is absent in every set (a child freed by a reflected `__eq__` made this family a primitive:
# `memory_element_child_freed_while_remove_compares`): the pure-Python Element removes from its list of children,
# which the clearing replaces, and raises ValueError (`exception`).
import xml.etree.ElementTree as ET


class Clearing(ET.Element):
    def __eq__(self, other):
        PARENT.clear()
        return False

    __hash__ = object.__hash__


PARENT = ET.Element("r")


def check(**p):
    for _ in range(20):
        ET.SubElement(PARENT, "a")
    PARENT.remove(Clearing("a"))
    return 1
