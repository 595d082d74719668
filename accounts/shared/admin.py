from django.contrib import admin


class ReadMostlyAdmin(admin.ModelAdmin):
    # The follows', trail's and ratings' tables are large: no full counts under the change lists.
    show_full_result_count = False
    list_per_page = 50
