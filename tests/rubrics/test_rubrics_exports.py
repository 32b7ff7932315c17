import inspect

import tracegrade.rubrics as rubrics


def test_all_is_sorted_and_unique():
    assert rubrics.__all__ == sorted(
        rubrics.__all__, key=lambda name: (not name.isupper(), not name[0].isupper(), name)
    )
    assert len(set(rubrics.__all__)) == len(rubrics.__all__)
    assert all(hasattr(rubrics, name) for name in rubrics.__all__)


def test_public_classes_and_functions_have_docstrings():
    for name in rubrics.__all__:
        value = getattr(rubrics, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), name
