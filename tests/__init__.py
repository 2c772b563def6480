"""The test suite, one package per subject (see conftest.py); shared harnesses are in testkit/."""
