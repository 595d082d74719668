"""Small neutral helpers every accounts domain may import (the admin's base,
the pages' cursors); they import no domain."""
