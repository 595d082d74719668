from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """PaperTrail's user: Django's user, owned by this project so that fields
    can be added without a swap later."""
