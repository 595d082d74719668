"""Sign-in, sign-out and the profile page. Included at the site root."""

from django.urls import path

from portal.views import accounts as views

app_name = "accounts"
urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("me/", views.me, name="me"),
    path("me/tokens/", views.token_create, name="token_create"),
    path("me/tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
]
