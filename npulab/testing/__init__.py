"""Test doubles, apart from product code: a synthetic CANN tree and a recording stand-in for pyACL."""
