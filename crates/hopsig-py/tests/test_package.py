"""The package imports, and its exceptions carry the CLI's exit classes."""

import hopsig
from hopsig import errors


def test_version_is_the_crates():
    assert hopsig.__version__ == "0.1.0"


def test_exit_classes():
    assert errors.InvalidError.exit_code == 1
    assert errors.InputError.exit_code == 2
    assert issubclass(errors.InputError, errors.HopsigError)
    assert issubclass(errors.InvalidError, errors.HopsigError)
    assert not issubclass(errors.InputError, errors.InvalidError)
